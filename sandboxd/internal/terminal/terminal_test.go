package terminal

import (
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestParseTerminalRequest(t *testing.T) {
	h := http.Header{}
	req, err := parseTerminalRequest("cols=120&rows=40&command=echo+hi", h)
	if err != nil || req.cols != 120 || req.rows != 40 || len(req.argv) != 3 || req.argv[2] != "echo hi" {
		t.Fatalf("got %+v, %v", req, err)
	}
	if req, err = parseTerminalRequest("", h); err != nil || req.cols != 80 || req.rows != 24 {
		t.Fatalf("defaults: got %+v, %v", req, err)
	}
	for _, q := range []string{"cols=0", "rows=1001", "cols=x", "%zz"} {
		if _, err := parseTerminalRequest(q, h); err == nil {
			t.Errorf("%q: accepted", q)
		}
	}
	h.Set("x-ticket-id", "abc")
	if _, err := parseTerminalRequest("", h); err == nil {
		t.Error("a ticket without its ttl: accepted")
	}
	h.Set("x-ticket-ttl-ms", "30000")
	if req, err := parseTerminalRequest("", h); err != nil || req.ticket != "abc" || req.ticketTTL != 30*time.Second {
		t.Fatalf("ticket: got %+v, %v", req, err)
	}
}

func TestTerminalsAdmit(t *testing.T) {
	ts := New(time.Second, nil, nil, "/")
	if status, _, ok := ts.admit("t1", time.Second); !ok {
		t.Fatalf("first use refused: %d", status)
	}
	if status, body, ok := ts.admit("t1", time.Second); ok || status != http.StatusConflict || body.Error != "ticket_used" {
		t.Fatalf("second use: %d %+v %v", status, body, ok)
	}
	for i := 1; i < maxTerminals; i++ {
		if _, _, ok := ts.admit("", 0); !ok {
			t.Fatalf("session %d refused", i+1)
		}
	}
	if status, _, ok := ts.admit("", 0); ok || status != http.StatusTooManyRequests {
		t.Fatalf("session %d: %d %v", maxTerminals+1, status, ok)
	}
	ts.release()
	if _, _, ok := ts.admit("", 0); !ok {
		t.Fatal("a released place was not given back")
	}
}

func TestSessionOf(t *testing.T) {
	cmd := exec.Command("sleep", "5")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal("cannot start sleep:", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if sid, ok := sessionOf(cmd.Process.Pid); !ok || sid != cmd.Process.Pid {
		t.Fatalf("sessionOf(%d) = %d, %v", cmd.Process.Pid, sid, ok)
	}
	if sid, ok := sessionOf(os.Getpid()); !ok || sid == cmd.Process.Pid {
		t.Fatalf("sessionOf(self) = %d, %v", sid, ok)
	}
}
