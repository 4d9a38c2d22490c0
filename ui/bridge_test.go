package ui

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestWaitEndsWithTheBridge: the command that waits for the engine's next
// item returns once the bridge is closed, as quitting closes it, so that
// no goroutine outlives the program waiting on a channel nobody sends on.
func TestWaitEndsWithTheBridge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBridge(time.Second / 60)
		returned := make(chan any, 1)
		go func() { returned <- b.wait()() }()
		synctest.Wait()
		select {
		case msg := <-returned:
			t.Fatalf("wait returned %v with nothing sent", msg)
		default:
		}
		b.close()
		synctest.Wait()
		select {
		case msg := <-returned:
			if msg != nil {
				t.Errorf("wait returned %v after the close, want nil", msg)
			}
		default:
			t.Error("wait still blocks after the bridge closed")
			b.ch <- nil // let it end, so that the bubble can
		}
	})
}
