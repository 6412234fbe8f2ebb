package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// proc is one running child. Only one call uses it at a time.
type proc struct {
	cmd    *exec.Cmd
	stdin  *os.File      // our end of the child's stdin
	stdout *bufio.Reader // our end of the child's stdout
	stderr *headBuffer
	exited chan struct{} // closed once the process is gone and reaped
}

// startProc starts a child. The pipes are plain os.Pipes so that the
// parent owns both ends and a dead child shows up as EOF or EPIPE.
func startProc(opts PoolOptions) (*proc, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd := exec.Command(opts.Command[0], opts.Command[1:]...)
	cmd.Env = append(append(os.Environ(), opts.Env...),
		EnvMemoryLimit+"="+strconv.FormatInt(opts.MemoryLimit, 10),
		"GOMAXPROCS=1") // one call runs at a time; keep hostile code to one core
	cmd.Stdin, cmd.Stdout = inR, outW
	c := &proc{cmd: cmd, stdin: inW, stdout: bufio.NewReaderSize(outR, 64<<10),
		stderr: &headBuffer{max: 8 << 10}, exited: make(chan struct{})}
	cmd.Stderr = c.stderr
	cmd.SysProcAttr = childAttr()
	err = cmd.Start()
	// The child has its copies; ours would hide its death (no EOF).
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	go func() {
		_ = cmd.Wait()
		inW.Close()
		outR.Close()
		close(c.exited)
	}()
	return c, nil
}

func (c *proc) alive() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// kill ends the child at once and waits until it is reaped.
func (c *proc) kill() {
	_ = c.cmd.Process.Kill()
	<-c.exited
}

type reply struct {
	line []byte
	err  error
}

// call sends one request line and waits for the answer for at most
// hardLimit. keep is false when the child must be replaced.
func (c *proc) call(ctx context.Context, line []byte, hardLimit time.Duration, maxReply int) (res wireResult, keep bool, err error) {
	c.stderr.reset()
	replies := make(chan reply, 1)
	// Writing happens here too: a wedged child must not block the caller.
	go func() {
		if _, err := c.stdin.Write(line); err != nil {
			replies <- reply{err: err}
			return
		}
		b, err := readLine(c.stdout, maxReply)
		replies <- reply{line: b, err: err}
	}()
	timer := time.NewTimer(hardLimit)
	defer timer.Stop()
	select {
	case r := <-replies:
		return c.answer(r)
	case <-timer.C:
		c.kill()
		<-replies
		return wireResult{Result: Result{Error: &Error{Kind: ErrKindTimeout}}}, false, nil
	case <-ctx.Done():
		c.kill()
		<-replies
		return wireResult{}, false, ctx.Err()
	}
}

// answer decodes a reply; a read error means the child died (or sent
// something no child of ours sends), and the crash is classified.
func (c *proc) answer(r reply) (wireResult, bool, error) {
	var res wireResult
	if r.err == nil && json.Unmarshal(r.line, &res) == nil {
		return res, !res.Recycle, nil
	}
	// EOF on stdout comes as the child exits; give it a moment to be
	// reaped so its exit status is its own, not our SIGKILL.
	select {
	case <-c.exited:
	case <-time.After(100 * time.Millisecond):
		c.kill()
	}
	return wireResult{Result: Result{Error: c.crashError()}}, false, nil
}

// crashError names why the child died from the first lines it wrote to
// stderr: the Go runtime's fatal errors say what happened.
func (c *proc) crashError() *Error {
	head := c.stderr.String()
	switch {
	case strings.Contains(head, "stack exceeds") || strings.Contains(head, "stack overflow"):
		return errorf(ErrKindStackOverflow, "the code recursed too deeply (stack overflow)")
	case isOutOfMemory(head):
		return errorf(ErrKindMemory, "the code used more memory than allowed")
	}
	state := "killed"
	if ps := c.cmd.ProcessState; ps != nil {
		state = ps.String()
	}
	first, _, _ := strings.Cut(strings.TrimSpace(head), "\n")
	return errorf(ErrKindCrashed, "the sandbox process ended (%s): %s", state, clip(first))
}

// isOutOfMemory recognises the Go runtime's and (under -race) the race
// runtime's ways of failing an allocation that the rlimit refused.
func isOutOfMemory(stderr string) bool {
	for _, s := range []string{"out of memory", "cannot allocate memory",
		"failed to allocate", "address space collisions"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

// headBuffer keeps the first max bytes written since the last reset:
// fatal errors put the reason first and goroutine dumps after it.
type headBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - h.buf.Len(); room > 0 {
		h.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (h *headBuffer) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.buf.Reset()
}

func (h *headBuffer) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.String()
}
