// Package proc starts the processes sandboxd runs and waits for every child: as PID 1 it
// reaps the orphans of the sandbox too.
package proc

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// reaper is the one place that waits for children. As PID 1 sandboxd inherits every orphan
// of the sandbox, so it reaps with wait4(-1); the processes it started itself (runs, the
// template's process) get their status through the channel start gave them. start holds the
// lock across fork, so a child cannot be reaped before it is registered.
type Reaper struct {
	mu      sync.Mutex
	waiting map[int]chan syscall.WaitStatus
	// cred is who every child runs as (the template's user); nil: sandboxd's own user.
	Cred *syscall.Credential
}

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER, which package syscall does not name.
const prSetChildSubreaper = 36

func NewReaper() *Reaper {
	r := &Reaper{waiting: map[int]chan syscall.WaitStatus{}}
	// Not PID 1 (a test, a host process): orphans of a run would go to the machine's init,
	// which reaps them when it will; until then a killed group still answers kill(-pgid, 0).
	// As a subreaper sandboxd reaps them itself, as it does as PID 1. Best effort.
	if os.Getpid() != 1 {
		_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	}
	sig := make(chan os.Signal, 16)
	signal.Notify(sig, syscall.SIGCHLD)
	go func() {
		for range sig {
			r.reap()
		}
	}()
	return r
}

// start runs spawn (which forks) and registers the child it returns.
func (r *Reaper) Start(spawn func() (int, error)) (int, <-chan syscall.WaitStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	pid, err := spawn()
	if err != nil {
		return 0, nil, err
	}
	ch := make(chan syscall.WaitStatus, 1)
	r.waiting[pid] = ch
	return pid, ch, nil
}

func (r *Reaper) reap() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if pid <= 0 || err != nil {
			return
		}
		if ch, ok := r.waiting[pid]; ok {
			delete(r.waiting, pid)
			ch <- status
		} // else an orphan that was reparented to us: reaped, nothing more to do
	}
}

// spawnProcess forks argv in its own process group with the given stdio files.
// cred, when set, is the user it runs as.
func Spawn(path string, argv []string, dir string, env []string, files []*os.File, cred *syscall.Credential) (int, error) {
	if cred != nil {
		givePipes(files, cred)
	}
	p, err := os.StartProcess(path, argv, &os.ProcAttr{
		Dir:   dir,
		Env:   env,
		Files: files,
		Sys:   &syscall.SysProcAttr{Setpgid: true, Credential: cred},
	})
	if err != nil {
		return 0, err
	}
	pid := p.Pid
	_ = p.Release() // the reaper waits for it, not os.Process
	return pid, nil
}

// signalGroup signals a process group; a group that is already gone is not an error.
func SignalGroup(pgid int, sig syscall.Signal) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, sig)
	}
}

// lookPath finds argv[0] on the PATH of the environment the program will get (as a spawn
// with an env does), not sandboxd's own.
func LookPath(file string, env []string) (string, error) {
	if file == "" {
		return "", os.ErrNotExist
	}
	for i := 0; i < len(file); i++ {
		if file[i] == '/' {
			return file, nil
		}
	}
	path := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	for _, kv := range env {
		if len(kv) > 5 && kv[:5] == "PATH=" {
			path = kv[5:]
		}
	}
	start := 0
	for i := 0; i <= len(path); i++ {
		if i < len(path) && path[i] != ':' {
			continue
		}
		dir := path[start:i]
		start = i + 1
		if dir == "" {
			dir = "."
		}
		candidate := dir + "/" + file
		if st, err := os.Stat(candidate); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return candidate, nil
		}
	}
	return "", &os.PathError{Op: "exec", Path: file, Err: syscall.ENOENT}
}

// givePipes gives the pipes among a child's stdio to the user it runs as, as runc does for a
// container's stdio: a pipe is its creator's (root's, mode 0600), so the user could not
// reopen its own stdout through /proc/self/fd/1 (or another of its processes' by pid).
func givePipes(files []*os.File, cred *syscall.Credential) {
	for _, f := range files {
		if f == nil {
			continue
		}
		var st syscall.Stat_t
		if syscall.Fstat(int(f.Fd()), &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO {
			_ = syscall.Fchown(int(f.Fd()), int(cred.Uid), int(cred.Gid))
		}
	}
}
