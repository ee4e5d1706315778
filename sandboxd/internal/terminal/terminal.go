// Package terminal serves shell sessions on a pseudo-terminal over a connection taken over
// from HTTP (GET /terminal with Upgrade: svc-terminal).
package terminal

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/svc-dev/svc/sandboxd/internal/proc"
	"github.com/svc-dev/svc/sandboxd/internal/wire"
)

// The terminal: `GET /terminal?cols=&rows=[&command=]` with `Upgrade: svc-terminal` starts a
// shell on a pseudo-terminal and, after a 101, carries it over the connection in frames:
//
//	kind (1 byte) | length (4 bytes, big-endian) | payload
//
// To sandboxd: 'i' input bytes, 'r' a resize (cols, rows: 2 bytes each, big-endian). From it:
// 'o' output bytes, then one 'x' whose payload is the JSON {"exitCode":N}, then the close.
// The client ending its side (EOF) closes the session. The API turns this into WebSocket
// frames (docs/terminal.md says why sandboxd speaks no WebSocket itself).
const (
	frameInput  = 'i'
	frameResize = 'r'
	frameOutput = 'o'
	frameExit   = 'x'

	// maxTerminals is the spec's cap of sessions per sandbox.
	maxTerminals = 16
	// maxInputFrame bounds one frame from the client; the API sends WebSocket messages as
	// they come, and a paste larger than this is split by it.
	maxInputFrame = 1 << 20
	// ticketsKeptFor outlives any ticket (they are valid 30 s): a used one stays refused.
	ticketsKeptFor = 2 * time.Minute
)

// terminals counts the sessions of this sandbox and remembers the tickets used to open them:
// a ticket is valid once, and this sandboxd is the one place every API replica reaches for
// this sandbox, so the use is recorded here.
type Terminals struct {
	grace   time.Duration
	baseEnv []string
	reaper  *proc.Reaper
	dir     string

	mu      sync.Mutex
	open    int
	tickets map[string]time.Time // ticket id → when it may be forgotten
}

func New(grace time.Duration, baseEnv []string, r *proc.Reaper, dir string) *Terminals {
	return &Terminals{grace: grace, baseEnv: baseEnv, reaper: r, dir: dir, tickets: map[string]time.Time{}}
}

// terminalRequest is a parsed `GET /terminal`.
type terminalRequest struct {
	cols, rows uint16
	argv       []string
	ticket     string
	ticketTTL  time.Duration
}

func parseTerminalRequest(rawQuery string, h http.Header) (terminalRequest, error) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return terminalRequest{}, errors.New("the query string is malformed")
	}
	size := func(name string, def uint16) (uint16, error) {
		v := q.Get(name)
		if v == "" {
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return 0, fmt.Errorf("%s must be an integer from 1 to 1000", name)
		}
		return uint16(n), nil
	}
	t := terminalRequest{ticket: h.Get("x-ticket-id")}
	if t.cols, err = size("cols", 80); err != nil {
		return t, err
	}
	if t.rows, err = size("rows", 24); err != nil {
		return t, err
	}
	if cmd := q.Get("command"); cmd != "" {
		t.argv = []string{"/bin/sh", "-c", cmd}
	} else if st, err := os.Stat("/bin/bash"); err == nil && !st.IsDir() {
		t.argv = []string{"/bin/bash"}
	} else {
		t.argv = []string{"/bin/sh"}
	}
	if t.ticket != "" {
		ms, err := strconv.Atoi(h.Get("x-ticket-ttl-ms"))
		if err != nil || ms < 0 {
			return t, errors.New("x-ticket-ttl-ms must be an integer ≥ 0")
		}
		t.ticketTTL = time.Duration(ms) * time.Millisecond
	}
	return t, nil
}

// admit takes a place for a session and spends its ticket, in one step; the refusal says why.
func (ts *Terminals) admit(ticket string, ttl time.Duration) (int, wire.ErrorBody, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	now := time.Now()
	for id, until := range ts.tickets {
		if now.After(until) {
			delete(ts.tickets, id)
		}
	}
	if ts.open >= maxTerminals {
		return http.StatusTooManyRequests, wire.Error("too_many_terminals", fmt.Sprintf("this sandbox has %d terminal sessions open, the most it allows", ts.open)), false
	}
	if ticket != "" {
		if _, used := ts.tickets[ticket]; used {
			return http.StatusConflict, wire.Error("ticket_used", "this ticket was used already"), false
		}
		ts.tickets[ticket] = now.Add(max(ttl, 0) + ticketsKeptFor)
	}
	ts.open++
	return 0, wire.ErrorBody{}, true
}

// Count is the number of sessions open.
func (ts *Terminals) Count() int {
	if ts == nil {
		return 0
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.open
}

func (ts *Terminals) release() {
	ts.mu.Lock()
	ts.open--
	ts.mu.Unlock()
}

// refuseUpgrade answers an upgrade request with a plain HTTP refusal and closes.
func refuseUpgrade(w http.ResponseWriter, status int, body wire.ErrorBody, extra string) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	text := fmt.Sprintf(`{"error":%q,"message":%q}`, body.Error, body.Message)
	fmt.Fprintf(conn, "HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n%sconnection: close\r\n\r\n%s",
		status, http.StatusText(status), len(text), extra, text)
	conn.Close()
}

// openTerminal serves one terminal session to its end.
func (ts *Terminals) ServeTerminal(w http.ResponseWriter, r *http.Request) {
	req, err := parseTerminalRequest(r.URL.RawQuery, r.Header)
	if err != nil {
		refuseUpgrade(w, http.StatusBadRequest, wire.Error("bad_request", err.Error()), "")
		return
	}
	if status, body, ok := ts.admit(req.ticket, req.ticketTTL); !ok {
		extra := ""
		if status == http.StatusTooManyRequests {
			extra = "retry-after: " + strconv.Itoa(wire.RetryAfterSeconds) + "\r\n"
		}
		refuseUpgrade(w, status, body, extra)
		return
	}
	defer ts.release()
	master, pid, status, err := ts.spawn(req)
	if err != nil {
		refuseUpgrade(w, http.StatusInternalServerError, wire.Error("terminal_failed", "cannot start "+req.argv[0]+": "+err.Error()), "")
		return
	}
	conn, buffered, err := http.NewResponseController(w).Hijack()
	if err != nil {
		master.Close()
		hangUp(pid, ts.grace)
		<-status
		return
	}
	defer conn.Close()
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true) // keystrokes are single bytes: never wait to coalesce them
	}
	_, _ = io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: svc-terminal\r\n\r\n")
	s := &session{master: master, out: conn}

	// Output: the pseudo-terminal to the client, until every holder of its other end is gone.
	pumped := make(chan struct{})
	go func() {
		defer close(pumped)
		buf := make([]byte, 32*1024)
		for {
			n, err := master.Read(buf)
			if n > 0 && s.write(frameOutput, buf[:n]) != nil {
				// The client is gone: keep draining so the programs never block on a full terminal.
				s.drop()
			}
			if err != nil {
				return
			}
		}
	}()
	// Input: the client's frames to the pseudo-terminal; its end ends the session. The
	// session's context is the request's, which no longer watches the connection once it is
	// taken over: the end of the client's frames ends it.
	session, hangUpSession := context.WithCancel(r.Context())
	defer hangUpSession()
	go func() {
		defer hangUpSession()
		readFrames(buffered.Reader, master)
	}()

	var ws syscall.WaitStatus
	select {
	case ws = <-status:
	case <-session.Done():
		// The client closed: SIGHUP to the session, SIGKILL after the grace period.
		hangUp(pid, ts.grace)
		ws = <-status
	}
	// The shell is gone; anything it left in its session goes too (a background job would
	// keep the terminal open and the session alive).
	hangUp(pid, ts.grace)
	select {
	case <-pumped:
	case <-time.After(2 * time.Second):
	}
	master.Close()
	code := ws.ExitStatus()
	if ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	_ = s.write(frameExit, []byte(`{"exitCode":`+strconv.Itoa(code)+`}`))
}

// spawn starts argv as the leader of a new session whose controlling terminal is a new
// pseudo-terminal; it returns the terminal's master side.
func (ts *Terminals) spawn(req terminalRequest) (*os.File, int, <-chan syscall.WaitStatus, error) {
	master, tty, err := pty.Open()
	if err != nil {
		return nil, 0, nil, err
	}
	if err := pty.Setsize(master, &pty.Winsize{Cols: req.cols, Rows: req.rows}); err != nil {
		master.Close()
		tty.Close()
		return nil, 0, nil, err
	}
	// The terminal belongs to the user whose shell it is, as login does (a program that
	// reopens it by name, or changes its mode, acts on its own file).
	if c := ts.reaper.Cred; c != nil {
		_ = tty.Chown(int(c.Uid), int(c.Gid))
	}
	env := make([]string, 0, len(ts.baseEnv)+1)
	for _, kv := range ts.baseEnv {
		if !strings.HasPrefix(kv, "TERM=") {
			env = append(env, kv)
		}
	}
	env = append(env, "TERM=xterm-256color")
	dir := ts.dir
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = "/"
	}
	pid, status, err := ts.reaper.Start(func() (int, error) {
		p, err := os.StartProcess(req.argv[0], req.argv, &os.ProcAttr{
			Dir:   dir,
			Env:   env,
			Files: []*os.File{tty, tty, tty},
			// A session of its own with the terminal as its controlling terminal: Ctrl-C reaches
			// the foreground process group through the line discipline, as on any terminal.
			Sys: &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0, Credential: ts.reaper.Cred},
		})
		if err != nil {
			return 0, err
		}
		pid := p.Pid
		_ = p.Release()
		return pid, nil
	})
	// Only the shell holds the terminal's side now: once it and its children are gone, reads
	// of the master end.
	tty.Close()
	if err != nil {
		master.Close()
		return nil, 0, nil, err
	}
	return master, pid, status, nil
}

// session writes frames to the client; the output pump and the exit share it.
type session struct {
	master *os.File
	mu     sync.Mutex
	out    io.Writer
	gone   bool
}

func (s *session) write(kind byte, payload []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone {
		return nil
	}
	var head [5]byte
	head[0] = kind
	binary.BigEndian.PutUint32(head[1:], uint32(len(payload)))
	if _, err := s.out.Write(append(head[:], payload...)); err != nil {
		s.gone = true
		return err
	}
	return nil
}

func (s *session) drop() {
	s.mu.Lock()
	s.gone = true
	s.mu.Unlock()
}

// readFrames applies the client's frames to the terminal until the client's side ends or
// sends something malformed.
func readFrames(in *bufio.Reader, master *os.File) {
	var head [5]byte
	buf := make([]byte, 32*1024)
	for {
		if _, err := io.ReadFull(in, head[:]); err != nil {
			return
		}
		n := binary.BigEndian.Uint32(head[1:])
		if n > maxInputFrame {
			return
		}
		switch head[0] {
		case frameInput:
			for n > 0 {
				chunk := buf[:min(int(n), len(buf))]
				if _, err := io.ReadFull(in, chunk); err != nil {
					return
				}
				if _, err := master.Write(chunk); err != nil {
					return
				}
				n -= uint32(len(chunk))
			}
		case frameResize:
			if n != 4 {
				return
			}
			var size [4]byte
			if _, err := io.ReadFull(in, size[:]); err != nil {
				return
			}
			cols, rows := binary.BigEndian.Uint16(size[:2]), binary.BigEndian.Uint16(size[2:])
			if cols > 0 && rows > 0 {
				_ = pty.Setsize(master, &pty.Winsize{Cols: cols, Rows: rows})
			}
		default:
			return
		}
	}
}

// hangUp sends SIGHUP to every process of the session led by sid, and SIGKILL to whatever
// of it remains after the grace period. A process that started a session of its own has
// left this one, as it would leave a real terminal's.
func hangUp(sid int, grace time.Duration) {
	signalSession(sid, syscall.SIGHUP)
	signalSession(sid, syscall.SIGCONT) // a stopped job sees its SIGHUP too
	time.AfterFunc(grace, func() { signalSession(sid, syscall.SIGKILL) })
}

// signalSession signals the members of session sid, found in /proc; without /proc, the
// leader's process group.
func signalSession(sid int, sig syscall.Signal) {
	proc.SignalGroup(sid, sig)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, ok := sessionOf(pid); ok && s == sid {
			_ = syscall.Kill(pid, sig)
		}
	}
}

// sessionOf reads the session id of pid from /proc/pid/stat (field 6; the name in field 2
// is in parentheses and may itself hold spaces and parentheses).
func sessionOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 4 {
		return 0, false
	}
	sid, err := strconv.Atoi(fields[3])
	return sid, err == nil
}
