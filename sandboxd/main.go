// sandboxd is the in-sandbox daemon: file writes, install runs, invokes and exec, and the port
// tunnel, over HTTP/1.1 with a bearer token; and, as the container's PID 1, the supervisor of
// the template's own process.
//
//	sandboxd [flags] [-- template command…]
//
// Configuration comes from flags or SANDBOXD_* variables (the operator sets these on the
// sandbox container); the template command gets the container's environment without them.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type config struct {
	listen               string
	token                string
	workspace            string
	grace                time.Duration
	keepalive            time.Duration
	maxConcurrentInvokes int
	runKeep              keepSettings // each run's event buffer, and how long ended runs stay readable
	readyFile            string
	command              []string
	// runAs is the template's user every process runs as; nil: sandboxd's own (as when
	// it is run by hand, or by a launcher that sets no user).
	runAs *[2]uint32
}

// usageError is a configuration problem: sandboxd exits 2 after saying it.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// parseConfig reads flags, falling back to SANDBOXD_<FLAG> variables; flags win.
func parseConfig(args []string, getenv func(string) string) (config, error) {
	fs := flag.NewFlagSet("sandboxd", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	names := []string{"listen", "token-file", "token", "workspace", "grace-seconds", "keepalive-seconds", "max-concurrent-invokes", "ready-file", "run-as-user", "run-as-group", "run-buffer-bytes", "run-retention-seconds"}
	values := map[string]*string{}
	for _, n := range names {
		values[n] = fs.String(n, "", "")
	}
	if err := fs.Parse(args); err != nil {
		return config{}, &usageError{err.Error()}
	}
	get := func(n string) string {
		if v := *values[n]; v != "" {
			return v
		}
		return getenv("SANDBOXD_" + strings.ToUpper(strings.ReplaceAll(n, "-", "_")))
	}
	or := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	c := config{listen: or(get("listen"), "0.0.0.0:9000"), workspace: or(get("workspace"), "/workspace"), readyFile: get("ready-file")}
	seconds := func(n, def string) (time.Duration, error) {
		f, err := strconv.ParseFloat(or(get(n), def), 64)
		if err != nil || f <= 0 {
			return 0, &usageError{"--" + n + ": must be a positive number of seconds"}
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	var err error
	if c.grace, err = seconds("grace-seconds", "10"); err != nil {
		return c, err
	}
	if c.keepalive, err = seconds("keepalive-seconds", "15"); err != nil {
		return c, err
	}
	if c.maxConcurrentInvokes, err = strconv.Atoi(or(get("max-concurrent-invokes"), "1")); err != nil || c.maxConcurrentInvokes < 1 {
		return c, &usageError{"--max-concurrent-invokes: must be an integer ≥ 1"}
	}
	c.runKeep = defaultKeep
	if c.runKeep.retention, err = seconds("run-retention-seconds", "900"); err != nil {
		return c, err
	}
	if v := get("run-buffer-bytes"); v != "" {
		if c.runKeep.bufferBytes, err = strconv.Atoi(v); err != nil || c.runKeep.bufferBytes < 1 {
			return c, &usageError{"--run-buffer-bytes: must be an integer ≥ 1"}
		}
		// Ended runs together keep at most eight runs' worth, however small the buffer.
		c.runKeep.totalBytes = 8 * c.runKeep.bufferBytes
	}
	if user := get("run-as-user"); user != "" {
		uid, err := strconv.ParseUint(user, 10, 32)
		if err != nil {
			return c, &usageError{"--run-as-user: must be a numeric uid"}
		}
		gid, err := strconv.ParseUint(or(get("run-as-group"), user), 10, 32)
		if err != nil {
			return c, &usageError{"--run-as-group: must be a numeric gid"}
		}
		c.runAs = &[2]uint32{uint32(uid), uint32(gid)}
	} else if get("run-as-group") != "" {
		return c, &usageError{"--run-as-group: needs --run-as-user"}
	}
	c.token = get("token")
	if c.token == "" {
		file := get("token-file")
		if file == "" {
			return c, &usageError{"--token-file: a token is required: --token-file or SANDBOXD_TOKEN_FILE"}
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return c, fmt.Errorf("cannot read the token: %w", err)
		}
		c.token = strings.TrimSpace(string(b))
	}
	c.command = fs.Args()
	return c, nil
}

// runEnvironment is the container's environment for runs and the template command:
// sandboxd's own settings (the token) stay out.
func runEnvironment(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "SANDBOXD_") {
			out = append(out, kv)
		}
	}
	return out
}

func listen(addr string) (net.Listener, error) {
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		_ = os.Remove(path)
		return net.Listen("unix", path)
	}
	i := strings.LastIndex(addr, ":")
	if i < 0 {
		return nil, &usageError{"--listen: must be host:port or unix:/path"}
	}
	host := addr[:i]
	if host == "" {
		host = "0.0.0.0"
	}
	return net.Listen("tcp", net.JoinHostPort(strings.Trim(host, "[]"), addr[i+1:]))
}

// writeReady says "listening" to whoever waits for sandboxd (devnode watches the file):
// written to a sibling and renamed, so its appearance means it is whole.
func writeReady(path string) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func main() { os.Exit(serve(os.Args[1:])) }

func serve(args []string) int {
	// Signals first: as PID 1 a SIGTERM without a handler would be ignored.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	c, err := parseConfig(args, os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandboxd: %v\n", err)
		if errors.As(err, new(*usageError)) {
			return 2
		}
		return 1
	}
	var own *owner
	if c.runAs != nil {
		own = newOwner(c.runAs[0], c.runAs[1], "/etc/passwd", c.workspace)
		if err := dropInheritable(); err != nil {
			fmt.Fprintf(os.Stderr, "sandboxd: cannot empty the inheritable capabilities: %v\n", err)
		}
		if err := adoptWorkspace(c.workspace, own); err != nil {
			fmt.Fprintf(os.Stderr, "sandboxd: cannot give the workspace to uid %d: %v\n", own.uid, err)
		}
	}
	reaper := newReaper()
	reaper.cred = own.credential()
	env := own.environment(runEnvironment(os.Environ()))
	runs := newRegistry(c.grace, c.maxConcurrentInvokes, env, reaper)
	runs.setKeep(c.runKeep)
	tokens := newTokenGate(c.token)
	srv := &server{authorized: tokens.authorized, tokens: tokens, workspace: c.workspace, owner: own, keepalive: c.keepalive, runs: runs,
		logs:      newLogRing(templateLogBytes),
		terminals: newTerminals(c.grace, env, reaper, c.workspace)}
	ln, err := listen(c.listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandboxd: cannot listen on %s: %v\n", c.listen, err)
		return 1
	}
	if len(c.command) > 0 {
		srv.template = startTemplate(c.command, c.workspace, env, reaper, c.grace, srv.logs)
	}
	httpServer := &http.Server{Handler: srv}
	go func() { _ = httpServer.Serve(ln) }()
	fmt.Fprintf(os.Stderr, "sandboxd listening on %s\n", c.listen)
	if c.readyFile != "" {
		if err := writeReady(c.readyFile); err != nil {
			fmt.Fprintf(os.Stderr, "sandboxd: cannot write the ready file: %v\n", err)
		}
	}
	<-stop
	// Shutdown: stop taking requests, then SIGTERM every child, SIGKILL after the grace.
	_ = ln.Close()
	done := make(chan struct{})
	go func() {
		runs.shutdown()
		close(done)
	}()
	if srv.template != nil {
		srv.template.stop()
	}
	<-done
	if c.readyFile != "" {
		_ = os.Remove(c.readyFile)
	}
	return 0
}
