package serial_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"
	"time"

	"github.com/creack/pty"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/serial"
)

func ExampleOpener_Open() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// A pseudo-terminal stands in for a board here; with hardware the port
	// is a path such as /dev/ttyUSB0 or /dev/serial/by-id/usb-….
	board, port, err := pty.Open()
	if err != nil {
		log.Fatal(err)
	}
	defer board.Close()
	defer port.Close()

	o := &serial.Opener{}
	conn, err := o.Open(ctx, transport.Target{
		Command: port.Name(),
		// 8N1 by default,
		Spec: transport.SerialParams{Baud: 115200, Reconnect: true},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()

	// The board prints its prompt; we answer with a command and CR, which
	// is what Enter sends to U-Boot.
	if _, err := io.WriteString(board, "U-Boot 2024.01\r\n=> "); err != nil {
		log.Fatal(err)
	}
	var out strings.Builder
	buf := make([]byte, 256)
	for !strings.HasSuffix(out.String(), "=> ") {
		n, err := conn.Read(buf)
		if err != nil {
			log.Fatal(err)
		}
		out.Write(buf[:n])
	}
	fmt.Printf("%q\n", out.String())

	if _, err := io.WriteString(conn, "version\r"); err != nil {
		log.Fatal(err)
	}
	n, err := io.ReadAtLeast(board, buf, len("version\r"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", buf[:n])

	// A pseudo-terminal has no modem lines.
	err = conn.(transport.ModemController).SetModemLine(transport.DTR, false)
	fmt.Println(errors.Is(err, transport.ErrUnsupported), err)
	// Output:
	// "U-Boot 2024.01\r\n=> "
	// "version\r"
	// true this device has no DTR line (a pseudo-terminal?)
}

func ExampleOpener_Open_busy() {
	board, port, err := pty.Open()
	if err != nil {
		log.Fatal(err)
	}
	defer board.Close()
	defer port.Close()
	var o serial.Opener
	first, err := o.Open(context.Background(), transport.Target{Command: port.Name()})
	if err != nil {
		log.Fatal(err)
	}
	defer first.Close()

	_, err = o.Open(context.Background(), transport.Target{Command: port.Name()})
	fmt.Println(errors.Is(err, serial.ErrBusy))
	// Output:
	// true
}
