// Package confine keeps every path a request names inside the workspace: a *Root is the
// workspace's folder opened once, and every lookup, open, write, listing and walk below it
// goes through that fd, confined by the kernel. The file API (package files) and the archive
// API (package archive) both reach the workspace only through it, and answer its refusals
// alike (refusal.go).
package confine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/svc-dev/svc/sandboxd/internal/identity"
)

// Every file and archive operation reaches the workspace through a *Root: a directory fd
// of the workspace root, and paths relative to it that the kernel resolves with openat2(2)
// and RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS. Nothing is checked by name and then opened by
// name: whatever user code swaps in between (a folder replaced by a link to /etc, a link to
// /proc/self/root), the lookup that opens the file is the one confined to the root.
// Creating, listing, stat, delete, rename and links work the same way: the folder an entry is
// in is opened beneath the root, then mkdirat, unlinkat, renameat, fstatat, symlinkat or
// linkat name the entry relative to that fd, never following it.
//
// Links that stay inside still work, absolute ones included (`ln -s /workspace/src cur`):
// resolve follows a path's links itself, reading each one beneath the root, and refuses one
// that leads out, so a caller gets the same answers as before. That walk only computes a
// path; the open that follows is what is confined, so a race can make it fail, never escape.
//
// Without openat2 (Linux before 5.6, gVisor builds that answer ENOSYS, seccomp profiles that
// answer ENOSYS or EPERM for syscalls they do not know), the same relative path is walked one
// component at a time with openat(O_NOFOLLOW), every folder with O_PATH|O_DIRECTORY: the path
// was resolved to contain no links and no `..`, so any link met on the way is one swapped in
// since, and the walk fails on it (ELOOP, ENOTDIR) rather than follow it. That is as race-free
// as openat2 for links; it only refuses a racing in-workspace link where openat2 would follow
// it. Refusing to serve files at all there would break those runtimes, and falling back to
// path-based calls would reopen the race, so the walk is the fallback.

const resolveBeneath = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS

// maxLinks is how many links one path may cross, as the kernel's own limit.
const maxLinks = 40

// Root is the workspace root opened for one request; Close it when the request is done.
type Root struct {
	root     string          // the workspace as configured, clean and absolute
	realRoot string          // root with links in its own path followed: an absolute link may name either
	fd       int             // the root, O_PATH|O_DIRECTORY
	walk     bool            // openat2 is missing: walk with O_NOFOLLOW instead
	Owner    *identity.Owner // who what is written belongs to; nil: sandboxd's own user
}

// Open opens the workspace root and learns whether openat2 works here.
func Open(root string) (*Root, error) {
	root = filepath.Clean(root)
	fd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	b := &Root{root: root, realRoot: root, fd: fd}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		b.realRoot = real
	}
	probe, err := unix.Openat2(fd, ".", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: resolveBeneath})
	switch {
	case err == nil:
		unix.Close(probe)
	case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
		b.walk = true
	default:
		unix.Close(fd)
		return nil, &os.PathError{Op: "openat2", Path: root, Err: err}
	}
	return b, nil
}

func (b *Root) Close() error { return unix.Close(b.fd) }

// Root is the workspace as configured, clean and absolute.
func (b *Root) Root() string { return b.root }

// FD is the root's own fd (O_PATH|O_DIRECTORY), for OpenAt and ParentOf to start from.
func (b *Root) FD() int { return b.fd }

// Abs is the absolute name of rel, for messages.
func (b *Root) Abs(rel string) string { return filepath.Join(b.root, rel) }

// RelOf is the path relative to the root of abs, a clean absolute path inside it or the root.
func (b *Root) RelOf(abs string) string {
	if abs == b.root {
		return "."
	}
	return strings.TrimPrefix(strings.TrimPrefix(abs, b.root), "/")
}

// within is target (clean, absolute: a link's content) relative to the root, when inside it.
func (b *Root) within(target string) (string, bool) {
	for _, r := range []string{b.root, b.realRoot} {
		switch {
		case target == r:
			return ".", true
		case r == "/":
			return strings.TrimPrefix(target, "/"), true
		case strings.HasPrefix(target, r+"/"):
			return target[len(r)+1:], true
		}
	}
	return "", false
}

// OpenAt opens rel beneath dirfd (the root or a folder opened beneath it).
func (b *Root) OpenAt(dirfd int, rel string, flags int, mode uint32) (int, error) {
	if rel == "" {
		rel = "."
	}
	if b.walk {
		return walkOpen(dirfd, rel, flags, mode)
	}
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Mode: uint64(mode), Resolve: resolveBeneath}
	for range 64 {
		fd, err := unix.Openat2(dirfd, rel, &how)
		// EAGAIN: a rename raced a `..` in the lookup and the kernel asks for another try.
		if err == unix.EAGAIN || err == unix.EINTR {
			continue
		}
		return fd, err
	}
	return -1, unix.EAGAIN
}

// walkOpen is openat2's stand-in: every component opened on its own, none followed.
func walkOpen(dirfd int, rel string, flags int, mode uint32) (int, error) {
	cur, err := unix.Openat(dirfd, ".", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		last := i == len(parts)-1
		switch {
		case p == "..":
			unix.Close(cur)
			return -1, unix.EXDEV
		case (p == "" || p == ".") && !last:
			continue
		case p == "":
			p = "."
		}
		f, m := unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(0)
		if last {
			f, m = flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode
		}
		next, err := unix.Openat(cur, p, f, m)
		unix.Close(cur)
		if err != nil {
			return -1, err
		}
		cur = next
	}
	return cur, nil
}

// PathErr is, for a lookup the kernel stopped at a link, a refusal (EXDEV: it leads out;
// ELOOP: a magic link, a loop, or a link swapped in under the fallback walk); else err named.
func (b *Root) PathErr(op, shown string, err error) error {
	switch {
	case errors.Is(err, unix.EXDEV):
		return &PathRefused{shown, "resolves outside " + b.root + " through a symbolic link"}
	case errors.Is(err, unix.ELOOP):
		return &PathRefused{shown, "crosses a symbolic link that may not be followed"}
	}
	return &os.PathError{Op: op, Path: shown, Err: err}
}

// OpenFile opens rel (resolved) beneath the root as an *os.File.
func (b *Root) OpenFile(shown, rel string, flags int) (*os.File, error) {
	fd, err := b.OpenAt(b.fd, rel, flags, 0)
	if err != nil {
		return nil, b.PathErr("open", shown, err)
	}
	return os.NewFile(uintptr(fd), b.Abs(rel)), nil
}

// Resolved is a path relative to the root with every link on it followed, and whether it
// exists (as far as it was looked up: not its last entry when that was not followed).
type Resolved struct {
	Rel    string
	Exists bool
}

// Resolve follows the links on rel (relative to the root, `..` allowed where it stays
// inside), reading each link beneath the root; a link that leads out is refused. Below the
// first missing folder the rest is taken as written. followLast: the last entry is followed
// too (read, write) rather than kept (delete, move).
func (b *Root) Resolve(shown, rel string, followLast bool) (Resolved, error) {
	out := func() string { return "resolves outside " + b.root + " through a symbolic link" }
	var done []string
	todo := strings.Split(rel, "/")
	exists, links := true, 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return Resolved{}, &PathRefused{shown, out()}
			}
			done = done[:len(done)-1]
			continue
		}
		done = append(done, c)
		if !exists || (len(todo) == 0 && !followLast) {
			continue
		}
		fd, err := b.OpenAt(b.fd, strings.Join(done, "/"), unix.O_PATH|unix.O_NOFOLLOW, 0)
		if errors.Is(err, unix.ENOENT) {
			exists = false
			continue
		}
		if err != nil {
			return Resolved{}, b.PathErr("lstat", shown, err)
		}
		target, isLink, err := linkOf(fd)
		unix.Close(fd)
		if err != nil {
			return Resolved{}, b.PathErr("readlink", shown, err)
		}
		if !isLink {
			continue
		}
		if links++; links > maxLinks {
			return Resolved{}, &PathRefused{shown, "crosses too many symbolic links"}
		}
		done = done[:len(done)-1]
		if strings.HasPrefix(target, "/") {
			inner, ok := b.within(filepath.Clean(target))
			if !ok {
				return Resolved{}, &PathRefused{shown, out()}
			}
			done, target = nil, inner
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	if len(done) == 0 {
		return Resolved{".", exists}, nil
	}
	return Resolved{strings.Join(done, "/"), exists}, nil
}

// linkOf reads the link fd (O_PATH|O_NOFOLLOW) is, if it is one.
func linkOf(fd int) (string, bool, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return "", false, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return "", false, nil
	}
	target, err := ReadlinkAt(fd, "")
	return target, true, err
}

func ReadlinkAt(dirfd int, name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// ParentOf opens the folder rel's last entry is in (links on the way followed beneath the
// root; created, with its parents, when create) and returns it with the entry's name. The
// caller closes the fd.
func (b *Root) ParentOf(shown, rel string, create bool) (int, string, error) {
	dir, base := path.Dir(rel), path.Base(rel)
	if base == "." || base == ".." || base == "/" {
		return -1, "", &PathRefused{shown, "names no entry"}
	}
	r, err := b.Resolve(shown, dir, true)
	if err != nil {
		return -1, "", err
	}
	if create && !r.Exists {
		if err := b.MkdirAll(shown, r.Rel); err != nil {
			return -1, "", err
		}
	}
	fd, err := b.OpenAt(b.fd, r.Rel, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return -1, "", b.PathErr("open", shown, err)
	}
	return fd, base, nil
}

// MkdirAll creates rel (resolved) and its missing parents, each one beneath the one before.
func (b *Root) MkdirAll(shown, rel string) error {
	cur, err := b.OpenAt(b.fd, ".", unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return b.PathErr("open", shown, err)
	}
	for _, c := range strings.Split(rel, "/") {
		if c == "" || c == "." {
			continue
		}
		err := unix.Mkdirat(cur, c, 0o755)
		if err == nil {
			err = b.Owner.ClaimNew(cur, c, unix.S_IFDIR)
		}
		if err != nil && err != unix.EEXIST {
			unix.Close(cur)
			return &os.PathError{Op: "mkdir", Path: shown, Err: err}
		}
		next, err := b.OpenAt(cur, c, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		unix.Close(cur)
		if err != nil {
			return b.PathErr("mkdir", shown, err)
		}
		cur = next
	}
	return unix.Close(cur)
}

// Stat is rel (resolved) followed, beneath the root.
func (b *Root) Stat(shown, rel string) (os.FileInfo, error) {
	fd, err := b.OpenAt(b.fd, rel, unix.O_PATH, 0)
	if err != nil {
		return nil, b.PathErr("stat", shown, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: shown, Err: err}
	}
	return newFileStat(path.Base(rel), &st), nil
}

// Lstat is the entry rel names (its folder's links followed beneath the root, not its own).
func (b *Root) Lstat(shown, rel string) (os.FileInfo, error) {
	dirfd, base, err := b.ParentOf(shown, rel, false)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dirfd)
	return LstatAt(dirfd, base)
}

// LstatAt is the entry name in the folder dirfd, not followed.
func LstatAt(dirfd int, name string) (os.FileInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &os.PathError{Op: "lstat", Path: name, Err: err}
	}
	return newFileStat(name, &st), nil
}

// fileStat is an os.FileInfo from an fstatat, as os.Lstat would have made it (Sys is a
// *syscall.Stat_t, which archive/tar reads owners and times from).
type fileStat struct {
	name string
	mode os.FileMode
	sys  syscall.Stat_t
}

func newFileStat(name string, st *unix.Stat_t) *fileStat {
	mode := UnixMode(int64(st.Mode & 0o7777))
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= os.ModeDir
	case unix.S_IFLNK:
		mode |= os.ModeSymlink
	case unix.S_IFIFO:
		mode |= os.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= os.ModeSocket
	case unix.S_IFCHR:
		mode |= os.ModeDevice | os.ModeCharDevice
	case unix.S_IFBLK:
		mode |= os.ModeDevice
	}
	return &fileStat{name: name, mode: mode, sys: syscall.Stat_t{
		Dev: st.Dev, Ino: st.Ino, Nlink: st.Nlink, Mode: st.Mode, Uid: st.Uid, Gid: st.Gid,
		Rdev: st.Rdev, Size: st.Size, Blksize: st.Blksize, Blocks: st.Blocks,
		Atim: syscall.Timespec{Sec: st.Atim.Sec, Nsec: st.Atim.Nsec},
		Mtim: syscall.Timespec{Sec: st.Mtim.Sec, Nsec: st.Mtim.Nsec},
		Ctim: syscall.Timespec{Sec: st.Ctim.Sec, Nsec: st.Ctim.Nsec},
	}}
}

func (f *fileStat) Name() string       { return f.name }
func (f *fileStat) Size() int64        { return f.sys.Size }
func (f *fileStat) Mode() os.FileMode  { return f.mode }
func (f *fileStat) ModTime() time.Time { return time.Unix(f.sys.Mtim.Sec, f.sys.Mtim.Nsec) }
func (f *fileStat) IsDir() bool        { return f.mode.IsDir() }
func (f *fileStat) Sys() any           { return &f.sys }

// SafeMode is m without setuid and setgid: nothing written through the API or unpacked from
// an archive runs with its owner's or group's privileges (sticky stays: it only guards a
// folder's entries).
func SafeMode(m os.FileMode) os.FileMode { return m &^ (os.ModeSetuid | os.ModeSetgid) }

// WriteAt streams body into a temporary sibling of name in the folder dirfd and renames it
// into place: a failure (a full volume, a body cut short) leaves nothing. The mode is set
// exactly (whatever the umask) less setuid and setgid; mtime, when set, is the file's time.
func (b *Root) WriteAt(dirfd int, name string, body io.Reader, mode os.FileMode, mtime time.Time) (int64, string, error) {
	temp := ".svc-tmp-" + RandomHex(6)
	fd, err := b.OpenAt(dirfd, temp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return 0, "", &os.PathError{Op: "create", Path: name, Err: err}
	}
	out := os.NewFile(uintptr(fd), temp)
	hash := sha256.New()
	n, err := io.CopyBuffer(io.MultiWriter(out, hash), struct{ io.Reader }{body}, make([]byte, CopyBufferBytes))
	if err == nil {
		err = out.Chmod(SafeMode(mode)) // on the fd: never a path another process could swap
	}
	if err == nil && !mtime.IsZero() {
		err = identity.Futimens(fd, unix.NsecToTimespec(mtime.UnixNano()))
	}
	if err == nil {
		err = b.Owner.Claim(fd) // last: mode and time were set by the file's creator
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dirfd, temp, dirfd, name)
	}
	if err != nil {
		_ = unix.Unlinkat(dirfd, temp, 0)
		return 0, "", err
	}
	return n, hex.EncodeToString(hash.Sum(nil)), nil
}

// RemoveAllAt removes name from the folder dirfd and, when it is a folder, everything in it;
// links are removed, never followed.
func (b *Root) RemoveAllAt(dirfd int, name string) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || err == unix.ENOENT {
		return nil
	}
	if err != unix.EISDIR && err != unix.EPERM {
		return &os.PathError{Op: "unlink", Path: name, Err: err}
	}
	for range 8 { // entries created while we delete: read again
		fd, err := b.OpenAt(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		if err == unix.ENOENT {
			return nil
		}
		if err != nil {
			return &os.PathError{Op: "open", Path: name, Err: err}
		}
		dir := os.NewFile(uintptr(fd), name)
		names, err := dir.Readdirnames(-1)
		for _, n := range names {
			if err == nil {
				err = b.RemoveAllAt(fd, n)
			}
		}
		dir.Close()
		if err != nil {
			return err
		}
		err = unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
		if err == nil || err == unix.ENOENT {
			return nil
		}
		if err != unix.ENOTEMPTY && err != unix.EEXIST {
			return &os.PathError{Op: "rmdir", Path: name, Err: err}
		}
	}
	return &os.PathError{Op: "rmdir", Path: name, Err: unix.ENOTEMPTY}
}

// WalkAt calls visit for every entry below the folder fd (not the folder itself) in lexical
// order, with its slash-separated name relative to it, the fd of the folder it is in and its
// own name there. Links are entries, never followed; every folder is opened beneath its parent.
func (b *Root) WalkAt(fd int, prefix string, visit func(name string, dirfd int, base string, info os.FileInfo) error) error {
	dup, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	dir := os.NewFile(uintptr(dup), prefix)
	names, err := dir.Readdirnames(-1)
	dir.Close()
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, n := range names {
		info, err := LstatAt(fd, n)
		if errors.Is(err, os.ErrNotExist) {
			continue // gone while we walked
		}
		if err != nil {
			return err
		}
		if err := visit(prefix+n, fd, n, info); err != nil {
			return err
		}
		if !info.IsDir() {
			continue
		}
		sub, err := b.OpenAt(fd, n, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		if err == unix.ENOENT || err == unix.ENOTDIR || err == unix.ELOOP {
			continue // gone, or swapped for a link, since it was looked at: not followed
		}
		if err != nil {
			return &os.PathError{Op: "open", Path: prefix + n, Err: err}
		}
		err = b.WalkAt(sub, prefix+n+"/", visit)
		unix.Close(sub)
		if err != nil {
			return err
		}
	}
	return nil
}
