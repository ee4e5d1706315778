// Package identity is the template's user: who every process runs as and every file
// written through the API belongs to.
package identity

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// owner is the template's user: every process sandboxd starts runs as it, and every file
// written through the API belongs to it. sandboxd itself stays root with a few capabilities
// (the Pod's securityContext lists them): a different uid is what keeps user code from
// signalling, tracing or reading sandboxd, and from reading the token it holds.
type Owner struct {
	uid, gid uint32
	name     string // from /etc/passwd, else the number
	home     string // from /etc/passwd when it exists there, else the workspace
}

// newOwner reads the user from the image's /etc/passwd (the name and home of the uid, as
// a login would); an image without an entry for it still works, with the workspace as home.
func New(uid, gid uint32, passwd, workspace string) *Owner {
	o := &Owner{uid: uid, gid: gid, name: strconv.FormatUint(uint64(uid), 10), home: workspace}
	f, err := os.Open(passwd)
	if err != nil {
		return o
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Split(s.Text(), ":")
		if len(fields) < 6 || fields[2] != o.name {
			continue
		}
		o.name = fields[0]
		if st, err := os.Stat(fields[5]); err == nil && st.IsDir() {
			o.home = fields[5]
		}
		break
	}
	return o
}

// credential is what a child is started with: the owner's uid and gid and no supplementary
// groups. Leaving root clears the child's capabilities (permitted, effective and ambient;
// the container's no_new_privs keeps an exec from regaining any). nil when sandboxd already
// is that user, so a sandboxd run by hand as a plain user starts its children as itself.
func (o *Owner) Credential() *syscall.Credential {
	if o == nil || (uint32(os.Getuid()) == o.uid && uint32(os.Getgid()) == o.gid) {
		return nil
	}
	return &syscall.Credential{Uid: o.uid, Gid: o.gid, Groups: []uint32{}}
}

// environment is env with HOME, USER and LOGNAME of the owner: the container's are root's.
func (o *Owner) Environment(env []string) []string {
	if o == nil {
		return env
	}
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "USER=") && !strings.HasPrefix(kv, "LOGNAME=") {
			out = append(out, kv)
		}
	}
	return append(out, "HOME="+o.home, "USER="+o.name, "LOGNAME="+o.name)
}

// claim gives the file open at fd to the owner: on the fd, never a path another process
// could swap. A nil owner (sandboxd run without one) changes nothing.
func (o *Owner) Claim(fd int) error {
	if o == nil {
		return nil
	}
	// AT_EMPTY_PATH: fd may be an O_PATH one (a folder or a link), which fchown refuses.
	return unix.Fchownat(fd, "", int(o.uid), int(o.gid), unix.AT_EMPTY_PATH|unix.AT_SYMLINK_NOFOLLOW)
}

// claimNew gives the folder or link sandboxd just made as name in dirfd to the owner:
// opened without following it and checked to be of that kind, so an entry user code swapped
// in meanwhile is not what changes hands.
func (o *Owner) ClaimNew(dirfd int, name string, kind uint32) error {
	if o == nil {
		return nil
	}
	fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != kind {
		return unix.EEXIST
	}
	return o.Claim(fd)
}

// adoptWorkspace makes the workspace the owner's when it is not yet: a workspace made
// before sandboxd ran processes as the template's user holds root's files, which the user
// could no longer change. The whole tree is handed over once (links not followed, only
// what root owns); after that the root is the owner's and this returns at the first stat,
// so the walk's cost is paid on the first start alone. It runs before any user process
// starts, so nothing swaps the tree while it is walked.
func AdoptWorkspace(root string, o *Owner) error {
	if o == nil || o.uid == 0 {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Stat(root, &st); err != nil {
		return err
	}
	if st.Uid == o.uid {
		return nil
	}
	walkErr := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone meanwhile or unreadable: the rest still changes hands
		}
		var st unix.Stat_t
		if unix.Lstat(path, &st) == nil && st.Uid == 0 {
			_ = unix.Lchown(path, int(o.uid), int(o.gid))
		}
		return nil
	})
	// The root last: its owner marks the hand-over done, so an interrupted one runs again.
	if err := unix.Chown(root, int(o.uid), int(o.gid)); err != nil {
		return err
	}
	return walkErr
}

// futimens sets the times of the file open at fd (utimensat with a NULL path, which
// x/sys/unix does not offer): the file is changed through the fd, never by name.
func Futimens(fd int, ts unix.Timespec) error {
	times := [2]unix.Timespec{ts, ts}
	_, _, errno := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(fd), 0, uintptr(unsafe.Pointer(&times)), 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// dropInheritable empties sandboxd's inheritable capability set, which its children would
// otherwise carry (a runtime that adds capabilities may fill it; runc leaves it empty): a
// child that leaves root then holds no capability in any set. Lowering it needs no privilege.
func DropInheritable() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	// Capabilities are a thread's: every thread of sandboxd must drop them, since any may
	// fork a child. AllThreadsSyscall does that (a build without cgo, as sandboxd's is).
	_, _, errno := syscall.AllThreadsSyscall(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	if errno == syscall.ENOTSUP {
		return unix.Capset(&hdr, &data[0])
	}
	if errno != 0 {
		return errno
	}
	return nil
}
