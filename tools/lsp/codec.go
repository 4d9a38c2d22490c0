package lsp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sourcegraph/jsonrpc2"
)

// maxMessage is the largest message read from a server. A server that
// announces more is broken (or hostile): the connection ends, as if it
// crashed, rather than lathe allocating what it asked for.
const maxMessage = 32 << 20

// maxHeader bounds one header line.
const maxHeader = 4096

// codec frames messages as the base protocol does ("Content-Length: N",
// a blank line, N bytes of JSON), refusing any message over maxMessage.
type codec struct{}

var _ jsonrpc2.ObjectCodec = codec{}

// WriteObject implements jsonrpc2.ObjectCodec.
func (codec) WriteObject(w io.Writer, obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// ReadObject implements jsonrpc2.ObjectCodec.
func (codec) ReadObject(r *bufio.Reader, v any) error {
	n := -1
	for {
		line, err := readLine(r)
		if err != nil {
			return err
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err = strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return fmt.Errorf("bad Content-Length %q", value)
			}
		}
	}
	switch {
	case n < 0:
		return errors.New("message without Content-Length")
	case n > maxMessage:
		return fmt.Errorf("message of %d bytes: more than %d", n, maxMessage)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// readLine reads one header line without its CRLF, at most maxHeader
// bytes.
func readLine(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		chunk, more, err := r.ReadLine()
		if err != nil {
			return "", err
		}
		b.Write(chunk)
		if b.Len() > maxHeader {
			return "", errors.New("header line too long")
		}
		if !more {
			return b.String(), nil
		}
	}
}
