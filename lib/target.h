/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_TARGET_H
#define PLATEAU_TARGET_H

/*
 * target: what a drive (or file) is, whether it is in use, and opening it.
 *
 * Identity.  Every destructive phase names the drive by its serial or by
 * EUI64 / NGUID / WWN, and target_match() compares that name with what the
 * drive reports right before anything is written:
 *   - NVMe namespaces (/dev/nvmeXnY, or the generic char device /dev/ngXnY):
 *     Identify Controller (serial, model, firmware, OACS, FNA, SANICAP) and
 *     Identify Namespace (size, LBA format, EUI64, NGUID) through libnvme;
 *     the namespace is mapped to its controller ("nvme0") through sysfs.
 *   - other block devices: sysfs.  serial: device/serial, then serial, then
 *     the VPD page 80h unit serial, then wwid; model: device/model;
 *     firmware: device/rev or device/firmware_rev; wwn: the hex part of a
 *     "naa." wwid.  A device with none of these has no serial and cannot be
 *     named by a plan (it is never erased).
 *   - loop devices have no serial of their own.  plateau gives them a
 *     synthetic one from the backing file as the kernel holds it
 *     (LOOP_GET_STATUS64), never from its name:
 *         "loop:<major>:<minor>:<inode>:<btime>"
 *     e.g. "loop:254:0:1318211:1796138593.011017719", where major:minor is
 *     the device holding the backing file, inode its inode number and
 *     btime its birth time (statx), followed by ":g<generation>" where the
 *     file system keeps an inode generation (FS_IOC_GETVERSION; ext4, xfs,
 *     btrfs), e.g. "loop:254:0:1318211:1796138593.011017719:g3442981160".
 *     Inode numbers are reused, and birth times come from a coarse clock;
 *     with both stamps the serial differs for another file, even one that
 *     got the same inode in the same clock tick.  A non-zero offset into the file
 *     appends "@<offset>".  A loop over a block device is "loop:" followed
 *     by that device's serial.  When neither stamp can be read (the
 *     backing file's name no longer leads to it: unlinked, another mount
 *     namespace) the serial has no stamp, is marked weak, and plateau
 *     never writes the device.
 *   - regular files: "file:<major>:<minor>:<inode>:<btime>" of the file
 *     itself, e.g. "file:254:0:1318211:1796138593.011017719".  Different
 *     prefixes keep a file and a loop device over it from matching each
 *     other's plans.  The form without the stamp (plateau 0.1) is refused
 *     with a request to re-read the serial (target_serial_legacy()).
 *
 * In use.  target_inuse() lists every reason not to write a target,
 * decided by device and inode numbers, never by names: the storage the
 * target reaches (the device and its partitions, every namespace of the
 * controller for an erase that covers them, and, for a loop device, what
 * it is stacked on down to the bottom file or device) must not be mounted
 * (st_dev of every mount in every mount namespace that can be read), swap,
 * held (holders/ at any depth: dm, md, LVM, bcache), the root filesystem,
 * or the backing of any other loop device (every bound loop's lo_rdevice,
 * lo_device and lo_inode; a stack of any depth is followed to its top to
 * say what uses it).  A check that cannot decide counts as a reason.
 * O_EXCL on open is the last line of defence (the kernel refuses a block
 * device that is mounted or claimed; it does not claim a loop's backing).
 *
 * Never logs; returns 0 or -errno, with a message where it helps.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

enum target_kind {
	TARGET_UNKNOWN = 0, /* target_identify_as(): detect */
	TARGET_FILE,
	TARGET_BLOCK,
	TARGET_NVME,
};

#define TARGET_PATH_LEN 256
#define TARGET_NAME_LEN 32
#define TARGET_SERIAL_LEN 80
#define TARGET_MODEL_LEN 64
#define TARGET_FIRMWARE_LEN 24
#define TARGET_REASON_LEN 160
#define TARGET_REASONS_MAX 8

/**
 * struct target_identity - who a drive is
 * @kind: file, block device or NVMe namespace
 * @path: the path it was identified by
 * @name: kernel name ("nvme0n1", "ng0n1", "loop3", "sda"); file: basename
 * @block_path: the block device to open for I/O ("/dev/nvme0n1", also for
 *              /dev/ng0n1 when the block device exists); empty for files
 * @model: model (NVMe MN), "Linux loop device" for loop, "regular file"
 * @serial: serial number, or the synthetic loop/file serial (see above)
 * @firmware: firmware revision, empty when unknown
 * @eui64: 16 lowercase hex digits as nvme-cli prints them, empty when absent
 * @nguid: 32 lowercase hex digits, empty when absent
 * @wwn: lowercase hex of an NAA world wide name, empty when absent
 * @capacity_bytes: size in bytes
 * @lba_bytes: logical block size (files: 4096, the O_DIRECT unit used)
 * @dev: block devices: st_rdev; files: st_dev of the file system
 * @ino: files only: st_ino
 * @ctrl: NVMe: controller name ("nvme0"), empty when sysfs does not say
 * @nsid: NVMe: namespace ID
 * @cntlid: NVMe: Identify Controller CNTLID
 * @oacs: NVMe: Identify Controller OACS (bit 1: Format NVM)
 * @fna: NVMe: Identify Controller FNA (bit 0/1: all namespaces, bit 2: crypto)
 * @sanicap: NVMe: Identify Controller SANICAP (bit 0 CES, bit 1 BES)
 * @flbas_index: NVMe: LBA format in use
 * @meta_bytes: NVMe: metadata bytes per block of that format
 * @meta_extended: NVMe: FLBAS bit 4
 * @dps: NVMe: Identify Namespace DPS (kept by a format)
 * @dlfeat: NVMe: Identify Namespace DLFEAT (bits 2:0: what deallocated blocks read as)
 * @discard: block devices: queue/discard_max_bytes is not zero
 * @rotational: block devices: queue/rotational
 * @serial_weak: a synthetic serial without the stamp that makes it unique
 *               (see above): the drive can be listed, never written
 */
struct target_identity {
	enum target_kind kind;
	char path[TARGET_PATH_LEN];
	char name[TARGET_NAME_LEN];
	char block_path[TARGET_PATH_LEN];
	char model[TARGET_MODEL_LEN];
	char serial[TARGET_SERIAL_LEN];
	char firmware[TARGET_FIRMWARE_LEN];
	char eui64[17];
	char nguid[33];
	char wwn[40];
	uint64_t capacity_bytes;
	uint32_t lba_bytes;
	dev_t dev;
	uint64_t ino;
	char ctrl[TARGET_NAME_LEN];
	uint32_t nsid;
	uint16_t cntlid;
	uint16_t oacs;
	uint8_t fna;
	uint32_t sanicap;
	uint8_t flbas_index;
	uint16_t meta_bytes;
	bool meta_extended;
	uint8_t dps;
	uint8_t dlfeat;
	bool discard;
	bool rotational;
	bool serial_weak;
};

/**
 * struct target_inuse - reasons a device must not be written
 * @count: number of reasons (0: not in use); more than TARGET_REASONS_MAX
 *         reasons are counted but only the first ones are kept
 * @reason: "nvme0n1p2 is mounted at /", "loop3 is active swap", ...
 */
struct target_inuse {
	unsigned count;
	char reason[TARGET_REASONS_MAX][TARGET_REASON_LEN];
};

#define TARGET_DEVSET_MAX 64

/**
 * struct target_devset - a device and everything that lives on it
 * @n: entries used
 * @dev: major:minor of the device and of each partition
 * @name: kernel names, same order
 * @is_file: the set stands for a regular file, not devices
 * @file_dev: with @is_file: st_dev of the file
 * @file_ino: with @is_file: st_ino of the file
 *
 * For a file: @n is 0, @file_dev / @file_ino say which file.
 */
struct target_devset {
	size_t n;
	dev_t dev[TARGET_DEVSET_MAX];
	char name[TARGET_DEVSET_MAX][TARGET_NAME_LEN];
	bool is_file;
	dev_t file_dev;
	uint64_t file_ino;
};

enum target_match_field {
	TARGET_MATCH_NONE = 0,
	TARGET_MATCH_SERIAL,
	TARGET_MATCH_EUI64,
	TARGET_MATCH_NGUID,
	TARGET_MATCH_WWN,
};

/**
 * struct target_entry - one row of target_list()
 * @id: identity; when it could not be read only path and name are set
 *      (kind TARGET_UNKNOWN)
 * @inuse: in-use reasons (also for a block device that could not be
 *         identified)
 * @err: 0, or -errno when the device could not be identified or the
 *       in-use check failed
 * @msg: what failed, when @err is not 0
 */
struct target_entry {
	struct target_identity id;
	struct target_inuse inuse;
	int err;
	char msg[160];
};

/**
 * target_kind_name() - "file", "block", "nvme"
 * @kind: kind
 *
 * Return: a static string; "unknown" for TARGET_UNKNOWN and out of range.
 */
const char *target_kind_name(enum target_kind kind);

/**
 * target_identify() - identify a drive or file by path
 * @path: /dev/nvme0n1, /dev/ng0n1, /dev/sda, /dev/loop3, a regular file
 * @id: result, written only on success
 * @msg: a message on failure (may be NULL)
 * @msg_len: size of @msg
 *
 * Opens @path read-only (O_NONBLOCK; no O_EXCL: identifying a mounted disk
 * is fine), calls target_identify_fd() and closes it again: for listing and
 * messages only, never for a decision to write (guard_open() identifies
 * through the descriptor it writes).  Partitions are refused (-EINVAL):
 * plateau takes whole drives.
 *
 * Return: 0 or -errno (@msg starts with @path).
 */
int target_identify(const char *path, struct target_identity *id, char *msg, size_t msg_len);

/**
 * target_identify_as() - like target_identify() with the kind forced
 * @path: path
 * @kind: TARGET_UNKNOWN detects; TARGET_BLOCK treats an NVMe namespace as a
 *        plain block device; TARGET_NVME also accepts a regular file, whose
 *        NVMe ioctls an LD_PRELOAD mock answers (tests/mock/nvme-ioctl.c) -
 *        on a real file they fail with ENOTTY
 * @id: result, written only on success
 * @msg: message on failure (may be NULL)
 * @msg_len: size of @msg
 *
 * Return: as target_identify().
 */
int target_identify_as(const char *path, enum target_kind kind, struct target_identity *id,
		       char *msg, size_t msg_len);

/**
 * target_identify_fd() - identify through an open descriptor
 * @fd: open on @path (read-only is enough; admin commands need CAP_SYS_ADMIN)
 * @path: the path @fd was opened from (for sysfs lookups and the record)
 * @kind: as for target_identify_as()
 * @id: result, written only on success
 * @msg: message on failure (may be NULL)
 * @msg_len: size of @msg
 *
 * Used to re-read the identity through the very descriptor that will be
 * written, so a device swapped between check and open is caught.
 *
 * Return: 0 or -errno.
 */
int target_identify_fd(int fd, const char *path, enum target_kind kind, struct target_identity *id,
		       char *msg, size_t msg_len);

/**
 * target_match() - does @want name this drive?
 * @id: identity
 * @want: a serial (compared without surrounding blanks, ignoring case), or an
 *        EUI64 / NGUID / WWN in hex with any case, ":" "-" " " separators
 *        and an optional "eui." / "naa." / "0x" prefix
 *
 * Empty or all-zero identifiers on the drive never match.
 *
 * Return: the field that matched, TARGET_MATCH_NONE if none.
 */
enum target_match_field target_match(const struct target_identity *id, const char *want);

/**
 * target_match_name() - "serial", "eui64", "nguid", "wwn", "none"
 * @f: field
 *
 * Return: a static string.
 */
const char *target_match_name(enum target_match_field f);

/**
 * target_same() - do two identities describe the same device?
 * @a: identity
 * @b: identity
 *
 * Compares kind, serial, EUI64, NGUID, WWN, nsid, capacity and block size:
 * used after re-opening (for example after a format) and between the check
 * and the exclusive open.
 *
 * Return: true when they agree.
 */
bool target_same(const struct target_identity *a, const struct target_identity *b);

/**
 * target_describe() - one line naming a drive for messages
 * @id: identity
 * @buf: destination
 * @len: size of @buf
 *
 * "/dev/nvme0n1 (nvme Samsung SSD 980, serial S64DNX0R123456, eui64
 * 002538...)": path, kind, model, serial ("none" when empty), then EUI64,
 * NGUID and WWN where present; cut to @len.
 *
 * Return: @buf.
 */
char *target_describe(const struct target_identity *id, char *buf, size_t len);

/**
 * target_devset_add_ctrl() - add every namespace of an NVMe controller
 * @sys_root: "/sys" (or a test tree)
 * @ctrl: "nvme0"
 * @set: set to extend
 *
 * Sanitize and some formats (FNA bits 0/1) erase every namespace: then every
 * namespace's users count.
 *
 * Return: 0 or -errno.
 */
int target_devset_add_ctrl(const char *sys_root, const char *ctrl, struct target_devset *set);

/**
 * target_serial_legacy() - is @want a synthetic serial of plateau 0.1?
 * @want: a name from a plan
 *
 * "file:M:m:INO" and "loop:M:m:INO[@OFF]" had no stamp and could repeat
 * when the inode number was reused; such a plan must re-read the serial.
 *
 * Return: true for the old form.
 */
bool target_serial_legacy(const char *want);

/**
 * target_inuse() - every reason not to write @id, on this system
 * @id: identity read through a descriptor (kind, dev, ino are used; no
 *      path is looked up)
 * @whole_ctrl: NVMe: check every namespace of the controller (sanitize, or
 *              a format with FNA bit 0/1, erases them all)
 * @u: result (zeroed first)
 *
 * Return: number of reasons (0: free to open), or -errno when the checks
 * themselves failed (treat as in use).
 */
int target_inuse(const struct target_identity *id, bool whole_ctrl, struct target_inuse *u);

/**
 * target_shares_disk() - does a file system sit on the target's storage?
 * @id: identity read through a descriptor
 * @fs_dev: st_dev of a file (the database)
 * @why: "the database (on sda1) and the target share sda"
 * @len: room in @why
 *
 * Both are resolved by device numbers to the devices at the bottom: a
 * partition to its disk, dm/md devices to their slaves, a loop device to
 * its backing device or to the file system holding its file.  A file system
 * with no block device (tmpfs) is only the same as itself.
 *
 * Return: 1 shared, 0 not, or -errno.
 */
int target_shares_disk(const struct target_identity *id, dev_t fs_dev, char *why, size_t len);

#define TARGET_KEY_LEN 64

/**
 * target_storage_keys() - the storage objects a write to @id lands on
 * @id: identity read through a descriptor
 * @keys: "block-7-3" for each block device from the target down through
 *        the loop devices it is stacked on, "file-254-0-1318211" for a
 *        file (the target, or the bottom of the stack)
 * @labels: a name for people, same order ("loop3", "the file")
 * @max: room in @keys and @labels
 *
 * By device and inode numbers: the names of per-drive locks.  The loop
 * devices are read from sysfs.
 *
 * Return: number of keys (>= 1), -E2BIG when the stack needs more than
 * @max, or another -errno.
 */
int target_storage_keys(const struct target_identity *id, char keys[][TARGET_KEY_LEN],
			char labels[][TARGET_NAME_LEN], size_t max);

/**
 * target_open() - open a target for I/O
 * @path: device or file
 * @writable: O_RDWR instead of O_RDONLY
 * @ret_fd: the descriptor, written only on success
 *
 * O_DIRECT for block devices and regular files; O_EXCL for block devices
 * (the kernel refuses a mounted or otherwise claimed device with EBUSY).
 * Character devices are opened plainly: generic NVMe char devices (ngXnY)
 * have no O_EXCL and no O_DIRECT I/O; open the block device for I/O.
 * @path is looked up here: a caller that must be sure which device it
 * opened checks through the descriptor afterwards (target_identify_fd()).
 *
 * Return: 0; -EINVAL for anything but a block device, character device or
 * regular file; other -errno from stat/open (-EBUSY: claimed).
 */
int target_open(const char *path, bool writable, int *ret_fd);

/**
 * target_list() - every NVMe namespace and block device
 * @ret: array, free() it (NULL when there is no entry)
 * @ret_n: number of entries
 *
 * The whole block devices in /sys/block, and NVMe generic char devices
 * (ngXnY) that have no block device listed already, sorted by kernel name
 * (strverscmp: nvme2n1 before nvme10n1).  Skips ram and zram devices
 * (memory, not drives), empty devices (size 0: unattached loop devices),
 * partitions and hidden multipath paths (nvmeXcYnZ).  Each entry carries
 * its identity and in-use reasons, or the error that kept it from being
 * identified: one device failing does not fail the list.
 *
 * Return: 0, or -errno (-ENOMEM; /sys/block unreadable).
 */
int target_list(struct target_entry **ret, size_t *ret_n);

#endif
