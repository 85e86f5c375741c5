/*
Copyright 2026 The demo-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// proc is a child process seen from the parent: the events it reported and its stats.
type proc struct {
	name    string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	started time.Time

	mu     sync.Mutex
	seen   map[string]message
	stats  chan message
	notify chan struct{}
	exited chan struct{}
}

// start runs the bench binary again as a child playing f.role; its log goes to the work dir.
func (b *Bench) start(f childFlags) (*proc, error) {
	b.seq++
	name := fmt.Sprintf("%03d-%s", b.seq, f.role)
	f.kubeconfig = b.kubeconfig
	if b.cfg.Profile {
		f.cpuProfile = filepath.Join(b.dir, name+".cpu.pprof")
	}
	if f.probeAddr == "" {
		f.probeAddr = "0"
	}
	log, err := os.Create(filepath.Join(b.dir, name+".log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(b.self, append([]string{"child"}, f.args()...)...)
	// The child must not outlive a bench killed half-way.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &proc{name: name, cmd: cmd, seen: map[string]message{}, stats: make(chan message, 1),
		notify: make(chan struct{}, 1), exited: make(chan struct{})}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		defer log.Close()
		defer close(p.exited)
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			var m message
			if json.Unmarshal(lines.Bytes(), &m) != nil {
				continue
			}
			if m.Event == eventStats {
				p.stats <- m
				continue
			}
			p.mu.Lock()
			if _, ok := p.seen[m.Event]; !ok {
				p.seen[m.Event] = m
			}
			p.mu.Unlock()
			select {
			case p.notify <- struct{}{}:
			default:
			}
		}
		_ = cmd.Wait()
	}()
	return p, nil
}

// event returns when the child first reported event, or the zero time if it has not.
func (p *proc) event(event string) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen[event].Time
}

// await waits until the child has reported every one of events.
func (p *proc) await(timeout time.Duration, events ...string) error {
	deadline := time.After(timeout)
	for {
		p.mu.Lock()
		failed, isErr := p.seen["error"]
		missing := 0
		for _, e := range events {
			if _, ok := p.seen[e]; !ok {
				missing++
			}
		}
		p.mu.Unlock()
		switch {
		case isErr:
			return fmt.Errorf("%s: %s", p.name, failed.Error)
		case missing == 0:
			return nil
		}
		select {
		case <-p.notify:
		case <-p.exited:
			return fmt.Errorf("%s exited before reporting %v (see its log in the work dir)", p.name, events)
		case <-deadline:
			return fmt.Errorf("%s did not report %v within %s", p.name, events, timeout)
		}
	}
}

// Stats asks the child for its stats.
func (p *proc) Stats() (*Stats, error) {
	if _, err := io.WriteString(p.stdin, eventStats+"\n"); err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	select {
	case m := <-p.stats:
		return m.Stats, nil
	case <-p.exited:
		return nil, fmt.Errorf("%s exited", p.name)
	case <-time.After(time.Minute):
		return nil, fmt.Errorf("%s did not report its stats", p.name)
	}
}

// stop ends the child gracefully (closing its stdin), killing it if it hangs.
func (p *proc) stop() {
	_ = p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		p.kill()
	}
}

func (p *proc) signal(sig syscall.Signal) error {
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

func (p *proc) kill() {
	_ = p.signal(syscall.SIGKILL)
	<-p.exited
}
