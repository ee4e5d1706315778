// Package wire is what every sandboxd endpoint writes and reads alike: JSON answers with the
// bytes JSON.stringify gives, the error body, and the one-line JSON a request starts with.
package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// RetryAfterSeconds is what a throttled caller is told to wait (the spec's Retry-After: 5).
const RetryAfterSeconds = 5

// ErrorBody is the body of every refusal.
type ErrorBody struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

// WriteJSON answers status with body as JSON, and its length.
func WriteJSON(w http.ResponseWriter, status int, body any) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the bytes JSON.stringify gives
	_ = enc.Encode(body)
	text := strings.TrimSuffix(b.String(), "\n")
	w.Header().Set("content-type", "application/json")
	w.Header().Set("content-length", strconv.Itoa(len(text)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, text)
}

// EqualFold compares a header's value with a lower-case token, ignoring ASCII case.
func EqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		ca, cb := a[i], b[i]
		if 'A' <= ca && ca <= 'Z' {
			ca += 'a' - 'A'
		}
		if ca != cb {
			return false
		}
	}
	return true
}

// ErrLineTooLong is ReadLine's refusal of a line over its limit.
var ErrLineTooLong = errors.New("line too long")

// ReadLine reads up to the first newline (not included); io.EOF ends a line too, but an
// empty body is an error.
func ReadLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > limit+1 {
			return nil, ErrLineTooLong
		}
		if err == nil {
			return bytes.TrimSuffix(line, []byte{'\n'}), nil
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(line) > 0 {
			return line, io.EOF
		}
		return nil, err
	}
}

// Error is the body of a refusal: its code, and what it means to a person.
func Error(code, message string) ErrorBody { return ErrorBody{Error: code, Message: message} }
