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
	"context"
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

	"github.com/svc-dev/svc/sandboxd/internal/activity"
	"github.com/svc-dev/svc/sandboxd/internal/archive"
	"github.com/svc-dev/svc/sandboxd/internal/auth"
	"github.com/svc-dev/svc/sandboxd/internal/files"
	"github.com/svc-dev/svc/sandboxd/internal/identity"
	"github.com/svc-dev/svc/sandboxd/internal/logs"
	"github.com/svc-dev/svc/sandboxd/internal/proc"
	"github.com/svc-dev/svc/sandboxd/internal/routes"
	"github.com/svc-dev/svc/sandboxd/internal/runs"
	"github.com/svc-dev/svc/sandboxd/internal/template"
	"github.com/svc-dev/svc/sandboxd/internal/terminal"
)

type config struct {
	listen               string
	token                string
	workspace            string
	grace                time.Duration
	keepalive            time.Duration
	maxConcurrentInvokes int
	runKeep              runs.Keep // each run's event buffer, and how long ended runs stay readable
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
	c.runKeep = runs.DefaultKeep
	if c.runKeep.Retention, err = seconds("run-retention-seconds", "900"); err != nil {
		return c, err
	}
	if v := get("run-buffer-bytes"); v != "" {
		if c.runKeep.BufferBytes, err = strconv.Atoi(v); err != nil || c.runKeep.BufferBytes < 1 {
			return c, &usageError{"--run-buffer-bytes: must be an integer ≥ 1"}
		}
		// Ended runs together keep at most eight runs' worth, however small the buffer.
		c.runKeep.TotalBytes = 8 * c.runKeep.BufferBytes
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
	// The server's base context: it ends at the first of them.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	c, err := parseConfig(args, os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandboxd: %v\n", err)
		if errors.As(err, new(*usageError)) {
			return 2
		}
		return 1
	}
	var own *identity.Owner
	if c.runAs != nil {
		own = identity.New(c.runAs[0], c.runAs[1], "/etc/passwd", c.workspace)
		if err := identity.DropInheritable(); err != nil {
			fmt.Fprintf(os.Stderr, "sandboxd: cannot empty the inheritable capabilities: %v\n", err)
		}
		if err := identity.AdoptWorkspace(c.workspace, own); err != nil {
			fmt.Fprintf(os.Stderr, "sandboxd: cannot give the workspace to uid %d: %v\n", c.runAs[0], err)
		}
	}
	reaper := proc.NewReaper()
	reaper.Cred = own.Credential()
	env := own.Environment(runEnvironment(os.Environ()))
	registry := runs.NewRegistry(c.grace, c.maxConcurrentInvokes, env, reaper)
	registry.SetKeep(c.runKeep)
	tokens := auth.NewGate(c.token)
	output := logs.NewRing(logs.KeptBytes)
	terms := terminal.New(c.grace, env, reaper, c.workspace)
	// Usage is sampled every second: CPU cores are the change of the cgroup's counter over it.
	usage := activity.NewMeter(c.workspace, time.Second)
	watched := activity.New(usage, registry, terms)
	srv := &routes.Server{Authorized: tokens.Authorized, Tokens: tokens, Files: &files.Server{Workspace: c.workspace, Owner: own},
		Archive:   &archive.Server{Workspace: c.workspace, Owner: own},
		Runs:      &runs.Server{Runs: registry, Keepalive: c.keepalive},
		Logs:      &logs.Server{Ring: output, Keepalive: c.keepalive},
		Terminals: terms, Watch: watched}
	ln, err := listen(c.listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandboxd: cannot listen on %s: %v\n", c.listen, err)
		return 1
	}
	if len(c.command) > 0 {
		srv.Template = template.Start(c.command, c.workspace, env, reaper, c.grace, output)
	}
	// The samplers stop when serve returns, after the shutdown.
	sampling, stopSampling := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSampling()
	go usage.Run(sampling)
	go watched.Watch(sampling)
	httpServer := &http.Server{Handler: watched.Wrap(srv)}
	go func() { _ = httpServer.Serve(ln) }()
	fmt.Fprintf(os.Stderr, "sandboxd listening on %s\n", c.listen)
	if c.readyFile != "" {
		if err := writeReady(c.readyFile); err != nil {
			fmt.Fprintf(os.Stderr, "sandboxd: cannot write the ready file: %v\n", err)
		}
	}
	<-ctx.Done()
	// Shutdown: stop taking requests, then SIGTERM every child, SIGKILL after the grace.
	_ = ln.Close()
	done := make(chan struct{})
	go func() {
		registry.Shutdown()
		close(done)
	}()
	if srv.Template != nil {
		srv.Template.Stop()
	}
	<-done
	if c.readyFile != "" {
		_ = os.Remove(c.readyFile)
	}
	return 0
}
