package transfer

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/sshdtest"
)

// BenchmarkSSHvsSCP measures a 50 MB upload and download over SFTP on an
// open connection (as ttymux's pooled one) against OpenSSH scp(1) of the
// same file to the same loopback sshd in the same run (DESIGN.md targets:
// at least 90 % of scp's rate), and checks the sha256 of every copy.
//
//	go test ./transfer -run XXX -bench SSHvsSCP -benchtime 3x
//	TTYMUX_BENCH_SFTP=internal go test ./transfer -run XXX -bench SSHvsSCP -benchtime 3x
//	TTYMUX_BENCH_MARGINAL=1 go test ./transfer -run XXX -bench SSHvsSCP -benchtime 3x
func BenchmarkSSHvsSCP(b *testing.B) {
	scp, err := exec.LookPath("scp")
	if err != nil {
		b.Skip("no scp")
	}
	sub := sftpSubsystem
	if os.Getenv("TTYMUX_BENCH_SFTP") == "internal" {
		// No shell start-up for the subsystem (a slow ~/.bashrc then
		// weighs on ttymux's sha256 command only).
		sub = "Subsystem sftp internal-sftp"
	}
	d := sshdtest.StartSSHD(b, sshdtest.SSHDOptions{Config: []string{sub}})
	x := &SSH{Client: dialSSHD(b, d)}
	dir := b.TempDir()
	remote := b.TempDir()
	src, data := randomFile(b, dir, 50<<20)
	want := SumBytes(data)
	known := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(known, []byte(d.KnownHostsLine()+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	scpArgs := []string{"-q", "-i", d.ClientKey, "-o", "UserKnownHostsFile=" + known, "-o", "StrictHostKeyChecking=yes",
		"-o", "BatchMode=yes", "-P", strconv.Itoa(d.Port)}
	remoteSpec := d.User + "@" + d.Host + ":"
	var ours, theirs [2]time.Duration // up, down
	check := func(p string) {
		got, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(got, data) {
			b.Fatalf("%s differs from the source (%v)", p, err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		up := filepath.Join(remote, "ours.bin")
		t0 := time.Now()
		res, err := x.Upload(b.Context(), fileSource(b, src), up, Options{Overwrite: true})
		ours[0] += time.Since(t0)
		if err != nil || res.SHA256 != want {
			b.Fatalf("upload: %v %+v", err, res)
		}
		check(up)
		down := filepath.Join(dir, "ours.back")
		t0 = time.Now()
		res, err = x.Download(b.Context(), up, &FileSink{Path: down, Overwrite: true}, Options{})
		ours[1] += time.Since(t0)
		if err != nil || res.SHA256 != want {
			b.Fatalf("download: %v %+v", err, res)
		}
		check(down)

		sup := filepath.Join(remote, "scp.bin")
		t0 = time.Now()
		if out, err := exec.Command(scp, append(scpArgs, src, remoteSpec+sup)...).CombinedOutput(); err != nil {
			b.Fatalf("scp up: %v %s", err, out)
		}
		theirs[0] += time.Since(t0)
		check(sup)
		sdown := filepath.Join(dir, "scp.back")
		t0 = time.Now()
		if out, err := exec.Command(scp, append(scpArgs, remoteSpec+sup, sdown)...).CombinedOutput(); err != nil {
			b.Fatalf("scp down: %v %s", err, out)
		}
		theirs[1] += time.Since(t0)
		check(sdown)
	}
	b.StopTimer()
	if os.Getenv("TTYMUX_BENCH_MARGINAL") != "" {
		// The same with a 10 MB file: the difference of the two sizes'
		// times is the rate of the data path alone, without the fixed
		// costs (scp's handshake, the shells a slow ~/.bashrc delays).
		small := filepath.Join(dir, "small.bin")
		if err := os.WriteFile(small, data[:10<<20], 0o600); err != nil {
			b.Fatal(err)
		}
		var o2, t2 [2]time.Duration
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			if _, err := x.Upload(b.Context(), fileSource(b, small), filepath.Join(remote, "ours.small"), Options{Overwrite: true}); err != nil {
				b.Fatal(err)
			}
			o2[0] += time.Since(t0)
			t0 = time.Now()
			if _, err := x.Download(b.Context(), filepath.Join(remote, "ours.small"), &FileSink{Path: filepath.Join(dir, "ours.small"), Overwrite: true}, Options{}); err != nil {
				b.Fatal(err)
			}
			o2[1] += time.Since(t0)
			t0 = time.Now()
			if out, err := exec.Command(scp, append(scpArgs, small, remoteSpec+filepath.Join(remote, "scp.small"))...).CombinedOutput(); err != nil {
				b.Fatalf("scp up: %v %s", err, out)
			}
			t2[0] += time.Since(t0)
			t0 = time.Now()
			if out, err := exec.Command(scp, append(scpArgs, remoteSpec+filepath.Join(remote, "scp.small"), filepath.Join(dir, "scp.small"))...).CombinedOutput(); err != nil {
				b.Fatalf("scp down: %v %s", err, out)
			}
			t2[1] += time.Since(t0)
		}
		b.ReportMetric((theirs[0]-t2[0]).Seconds()/(ours[0]-o2[0]).Seconds(), "marginal-up-rate/scp")
		b.ReportMetric((theirs[1]-t2[1]).Seconds()/(ours[1]-o2[1]).Seconds(), "marginal-down-rate/scp")
	}
	mb := float64(len(data)) / 1e6 * float64(b.N)
	b.ReportMetric(mb/ours[0].Seconds(), "up-MB/s")
	b.ReportMetric(mb/theirs[0].Seconds(), "scp-up-MB/s")
	b.ReportMetric(mb/ours[1].Seconds(), "down-MB/s")
	b.ReportMetric(mb/theirs[1].Seconds(), "scp-down-MB/s")
	b.ReportMetric(theirs[0].Seconds()/ours[0].Seconds(), "up-rate/scp")
	b.ReportMetric(theirs[1].Seconds()/ours[1].Seconds(), "down-rate/scp")
}
