package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/guardstream/guardstream/internal/embedded"
	"github.com/nats-io/nats-server/v2/server"
)

// Serve runs a JetStream server for the parent benchmark process: it prints
// "ready <url>" when it accepts connections, then serves until killed.
func Serve(storeDir string, sync bool) error {
	s, err := server.NewServer(&server.Options{
		ServerName: "guard-bench", Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: storeDir, NoSigs: true, NoLog: true, SyncAlways: sync,
	})
	if err != nil {
		return err
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		return embedded.ErrNotReady
	}
	fmt.Printf("ready %s\n", s.ClientURL())
	s.WaitForShutdown()
	return nil
}

// child is a server process started by startServer.
type child struct {
	cmd *exec.Cmd
	url string
}

// startServer starts this binary as a server child (see Serve).
func startServer(ctx context.Context, storeDir string, sync bool) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{serveFlag, storeDir}
	if sync {
		args = append(args, "-sync")
	}
	cmd := exec.CommandContext(ctx, self, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if url, ok := strings.CutPrefix(lines.Text(), "ready "); ok {
			return &child{cmd: cmd, url: url}, nil
		}
	}
	_ = cmd.Process.Kill()
	return nil, fmt.Errorf("the server child exited before it was ready: %v", cmd.Wait())
}

func (c *child) stop() {
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}
