package pipe

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// A pipe behaves as a socket with unbounded buffers: writes never wait for
// the reader, a close is seen after the data written before it, and
// deadlines give os.ErrDeadlineExceeded.
func TestPipe(t *testing.T) {
	cases := []struct {
		name string
		run  func(a, b *Conn) error
	}{
		{"writes do not wait for the reader", func(a, b *Conn) error {
			for range 1000 {
				if _, err := a.Write(make([]byte, 1024)); err != nil {
					return err
				}
			}
			got, err := io.ReadAll(io.LimitReader(b, 1000*1024))
			if err == nil && len(got) != 1000*1024 {
				return errors.New("short read")
			}
			return err
		}},
		{"close: the peer reads the data, then EOF", func(a, b *Conn) error {
			a.Write([]byte("bye"))
			a.Close()
			got, err := io.ReadAll(b)
			if err != nil || string(got) != "bye" {
				return errors.New("read " + string(got))
			}
			if _, err := b.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
				return errors.New("write to a closed peer: no error")
			}
			if _, err := a.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
				return errors.New("read after close: no net.ErrClosed")
			}
			return nil
		}},
		{"half-close: this end still reads", func(a, b *Conn) error {
			a.CloseWrite()
			if _, err := b.Read(make([]byte, 1)); err != io.EOF {
				return errors.New("peer read: no EOF")
			}
			b.Write([]byte("late"))
			buf := make([]byte, 4)
			if n, err := a.Read(buf); err != nil || string(buf[:n]) != "late" {
				return errors.New("read after CloseWrite failed")
			}
			return nil
		}},
		{"read deadline", func(a, b *Conn) error {
			b.SetReadDeadline(time.Now().Add(time.Millisecond))
			if _, err := b.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
				return errors.New("read past the deadline: no os.ErrDeadlineExceeded")
			}
			b.SetReadDeadline(time.Time{})
			a.Write([]byte("x"))
			_, err := b.Read(make([]byte, 1))
			return err
		}},
		{"write deadline", func(a, b *Conn) error {
			a.SetWriteDeadline(time.Unix(1, 0))
			if _, err := a.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
				return errors.New("write past the deadline: no os.ErrDeadlineExceeded")
			}
			return nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := New()
			defer a.Close()
			defer b.Close()
			if err := tc.run(a, b); err != nil {
				t.Fatal(err)
			}
			if a.LocalAddr().String() != "pipe" || b.RemoteAddr().Network() != "pipe" {
				t.Fatal("addresses")
			}
		})
	}
}
