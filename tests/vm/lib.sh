# shellcheck shell=bash
# tests/vm/lib.sh: boot Debian's kernel under QEMU with an emulated NVMe
# controller and run a script inside it (sourced by tests/vm/*.t).
#
#   vm_prepare                 find or fetch the kernel; sets VM_KERNEL,
#                              VM_MODDIR, VM_KVER; on failure returns 1
#                              with the reason in VM_WHY
#   vm_run WORKDIR IMG SERIAL [NSOPTS]
#                              boot once: WORKDIR/share/run.sh runs inside
#                              the guest as root (bash from the host), with
#                              /dev/nvme0n1 backed by IMG; its output and
#                              files land in WORKDIR/share (the guest sees
#                              it as /plateau-vm); sets VM_RC (the script's
#                              exit status, or 255 when it never finished)
#                              and VM_SECONDS; NSOPTS are extra nvme-ns
#                              properties ("eui64=0x...")
#                              VM_IMG2 and VM_SERIAL2, when set, add a
#                              second controller (/dev/nvme1n1)
#
# The guest: Debian's linux-image-6.1.0-*-amd64 (apt-get download, unpacked
# into a cache, never installed), its uncompressed vmlinux booted via PVH
# with qboot, a busybox-static initramfs that insmods nvme, virtio 9p and
# overlay (dependencies read from each module's .modinfo), the host root
# shared read-only over 9p with a tmpfs overlay on top (so freshly built
# host binaries and their libraries run at their real paths), and a second
# 9p share, read-write, for results.  -smp 1; KVM only when /dev/kvm is
# writable and the CPU shows vmx/svm, else TCG.
#
# Cache: $PLATEAU_VM_CACHE, else /var/cache/plateau/vm when writable, else
# $PLATEAU_BUILD/vm-cache.  Only the vmlinux and the few modules are kept.

VM_MODULES="virtio_pci 9pnet_virtio 9p overlay nvme crc32c_generic ext4 dm-mod"

vm_cache_dir() {
	local d
	for d in "${PLATEAU_VM_CACHE:-}" /var/cache/plateau/vm "${PLATEAU_BUILD:?}/vm-cache"; do
		[ -n "$d" ] || continue
		if mkdir -p "$d" 2>/dev/null && [ -w "$d" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

# A complete cached kernel: $1/vmlinux, $1/modules/order, $1/ok
vm_cached() {
	[ -f "$1/ok" ] && [ -s "$1/vmlinux" ] && [ -s "$1/modules/order" ]
}

# Which linux-image-6.1.0-N-amd64 does the archive offer?
vm_kernel_package() {
	local p
	p=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -1)
	if [ -z "$p" ] && [ "$(id -u)" = 0 ]; then
		apt-get update -qq >/dev/null 2>&1
		p=$(apt-cache depends linux-image-amd64 2>/dev/null |
			sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -1)
	fi
	[ -n "$p" ] && echo "$p"
}

# vm_extract_vmlinux VMLINUZ OUT: the ELF inside a bzImage (xz, zstd or gzip)
vm_extract_vmlinux() {
	local z=$1 out=$2 off magic dec
	for magic in 'xz:\xfd7zXZ\x00' 'zstd:\x28\xb5\x2f\xfd' 'gzip:\x1f\x8b\x08\x00'; do
		dec=${magic%%:*}
		command -v "$dec" >/dev/null || continue
		for off in $(LC_ALL=C grep -abo -P "${magic#*:}" "$z" 2>/dev/null | cut -d: -f1 | head -5); do
			tail -c +$((off + 1)) "$z" | "$dec" -dc 2>/dev/null >"$out"
			if [ "$(head -c 4 "$out" | od -An -c | tr -d ' ')" = '177ELF' ]; then
				return 0
			fi
		done
	done
	rm -f "$out"
	return 1
}

# vm_copy_modules MODROOT DEST NAMES...: the modules and their dependencies,
# in load order (dependencies first) in DEST/order
vm_copy_modules() {
	local root=$1 dest=$2 index order=" "
	shift 2
	mkdir -p "$dest"
	index=$(find "$root" -name '*.ko')
	_vm_mod() {
		local m=$1 f d alt
		alt=$(echo "$m" | tr '_-' '-_')
		case "$order" in *" $m "* | *" $alt "*) return 0 ;; esac
		f=$(printf '%s\n' "$index" | grep -E "/($m|$alt)\.ko$" | head -1)
		[ -n "$f" ] || return 1
		for d in $(tr '\0' '\n' <"$f" | sed -n 's/^depends=//p' | tr ',' ' '); do
			_vm_mod "$d" || return 1
		done
		cp "$f" "$dest/"
		order="$order$(basename "$f" .ko) "
	}
	for m in "$@"; do
		_vm_mod "$m" || echo "vm: module $m not found, skipped" >&2
	done
	echo "$order" | tr ' ' '\n' | sed '/^$/d' >"$dest/order"
}

vm_prepare() {
	local cache pkg deb tmp kdir d
	VM_WHY=
	for t in qemu-system-x86_64 busybox; do
		if ! command -v $t >/dev/null; then
			VM_WHY="$t not installed (qemu-system-x86, busybox-static)"
			return 1
		fi
	done
	if ! LC_ALL=C ldd "$(command -v busybox)" 2>&1 | grep -q 'not a dynamic executable'; then
		VM_WHY="busybox is not the static build (install busybox-static)"
		return 1
	fi
	if [ ! -f /usr/share/qemu/qboot.rom ]; then
		VM_WHY="/usr/share/qemu/qboot.rom missing (qemu-system-data)"
		return 1
	fi
	if ! cache=$(vm_cache_dir); then
		VM_WHY="no writable cache directory for the guest kernel"
		return 1
	fi
	exec 9>"$cache/lock"
	flock 9
	# newest complete cached kernel first
	for d in $(ls -d "$cache"/6.* 2>/dev/null | sort -rV); do
		if vm_cached "$d"; then
			kdir=$d
			break
		fi
	done
	if [ -z "${kdir:-}" ]; then
		if ! command -v apt-get >/dev/null || ! pkg=$(vm_kernel_package); then
			VM_WHY="no cached guest kernel and apt cannot name linux-image-*-amd64"
			flock -u 9
			return 1
		fi
		tmp=$(mktemp -d "$cache/fetch.XXXXXX")
		if ! (cd "$tmp" && apt-get download -qq "$pkg" >/dev/null 2>&1); then
			VM_WHY="apt-get download $pkg failed"
			rm -rf "$tmp"
			flock -u 9
			return 1
		fi
		deb=$(ls "$tmp"/*.deb | head -1)
		dpkg-deb -x "$deb" "$tmp/x"
		VM_KVER=$(ls "$tmp/x/lib/modules" | head -1)
		kdir=$cache/$VM_KVER
		rm -rf "$kdir"
		mkdir -p "$kdir"
		if ! vm_extract_vmlinux "$tmp/x/boot/vmlinuz-$VM_KVER" "$kdir/vmlinux"; then
			VM_WHY="cannot extract vmlinux from vmlinuz-$VM_KVER"
			rm -rf "$tmp" "$kdir"
			flock -u 9
			return 1
		fi
		cp "$tmp/x/boot/config-$VM_KVER" "$kdir/config"
		# shellcheck disable=SC2086
		vm_copy_modules "$tmp/x/lib/modules/$VM_KVER" "$kdir/modules" $VM_MODULES
		echo "$pkg $(basename "$deb")" >"$kdir/ok"
		rm -rf "$tmp"
	fi
	flock -u 9
	VM_KVER=$(basename "$kdir")
	VM_KERNEL=$kdir/vmlinux
	VM_MODDIR=$kdir/modules
	for m in nvme 9p 9pnet_virtio virtio_pci overlay; do
		if ! grep -qx "$m" "$VM_MODDIR/order"; then
			VM_WHY="kernel $VM_KVER lacks the $m module"
			return 1
		fi
	done
	return 0
}

# The guest's /init (busybox sh)
vm_init_script() {
	cat <<'EOF'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules/order); do
	insmod /modules/$m.ko 2>/dev/null || echo "vm: insmod $m failed"
done
mkdir -p /lower /rw /newroot /results
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 hostroot /lower || echo "vm: 9p root failed"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 results /results || echo "vm: 9p results failed"
mount -t tmpfs -o size=256m tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /newroot || echo "vm: overlay failed"
mkdir -p /newroot/plateau-vm
mount --bind /results /newroot/plateau-vm
mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount -t devtmpfs devtmpfs /newroot/dev
mount -t tmpfs tmpfs /newroot/run
i=0
while [ ! -b /dev/nvme0n1 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
i=0
while [ -e /sys/class/nvme/nvme1 ] && [ ! -b /dev/nvme1n1 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
echo "vm: guest ready"
chroot /newroot /bin/bash /plateau-vm/run.sh >/results/guest.out 2>&1
echo $? >/results/rc
sync
umount /newroot/plateau-vm /results 2>/dev/null
echo "vm: poweroff"
poweroff -f
EOF
}

vm_initramfs() {
	local out=$1 root
	root=$(mktemp -d "$(dirname "$out")/initramfs.XXXXXX")
	mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/modules"
	cp "$(command -v busybox)" "$root/bin/busybox"
	for a in $(busybox --list); do
		[ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"
	done
	cp "$VM_MODDIR"/*.ko "$VM_MODDIR/order" "$root/modules/"
	vm_init_script >"$root/init"
	chmod +x "$root/init"
	(cd "$root" && find . | busybox cpio -o -H newc -R 0:0 2>/dev/null) >"$out"
	rm -rf "$root"
}

vm_run() {
	local w=$1 img=$2 serial=$3 nsopts=${4:-} accel cpu t0
	mkdir -p "$w/share"
	rm -f "$w/share/rc"
	vm_initramfs "$w/initrd.cpio"
	if [ -w /dev/kvm ] && grep -qE '\b(vmx|svm)\b' /proc/cpuinfo; then
		accel=kvm
		cpu=host
	else
		accel=tcg
		cpu=max
	fi
	t0=$(date +%s)
	timeout --kill-after=5 "${PLATEAU_VM_TIMEOUT:-150}" qemu-system-x86_64 \
		-machine pc,accel=$accel -cpu $cpu -smp 1 -m 1024 \
		-nodefaults -no-user-config -nographic -no-reboot \
		-serial "file:$w/console.log" \
		-bios /usr/share/qemu/qboot.rom \
		-kernel "$VM_KERNEL" -initrd "$w/initrd.cpio" \
		-append "console=ttyS0 panic=-1 loglevel=4 rdinit=/init" \
		-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
		-fsdev "local,id=results,path=$w/share,security_model=none,multidevs=remap" \
		-device virtio-9p-pci,fsdev=results,mount_tag=results \
		-drive "file=$img,if=none,id=nvm,format=raw,cache=unsafe" \
		-device "nvme,id=nvme0,serial=$serial" \
		-device "nvme-ns,drive=nvm,bus=nvme0,nsid=1${nsopts:+,$nsopts}" \
		${VM_IMG2:+-drive "file=$VM_IMG2,if=none,id=nvm2,format=raw,cache=unsafe"} \
		${VM_IMG2:+-device "nvme,id=nvme1,serial=$VM_SERIAL2"} \
		${VM_IMG2:+-device "nvme-ns,drive=nvm2,bus=nvme1,nsid=1"} \
		>"$w/qemu.out" 2>&1
	VM_QEMU_RC=$?
	[ "$VM_QEMU_RC" = 0 ] || diag "qemu exit $VM_QEMU_RC: $(tail -n 3 "$w/qemu.out" 2>/dev/null)"
	VM_SECONDS=$(($(date +%s) - t0))
	VM_ACCEL=$accel
	if [ -s "$w/share/rc" ]; then
		VM_RC=$(cat "$w/share/rc")
	else
		VM_RC=255
	fi
}
