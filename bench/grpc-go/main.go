// A minimal grpc-go server for bench/grpc.bench.ts, the ceiling of the gRPC figures: it answers
// every unary call with the same bytes (the AdminMeta answer the Node servers send), through a
// codec that passes messages through as raw bytes, so no protobuf code is generated or run.
//
//	grpc-go-server <answer file>   prints {"grpc": <port>} once it listens on 127.0.0.1
package main

import (
	"fmt"
	"net"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
)

// rawCodec takes and gives messages as []byte. Named "proto" so that it serves application/grpc+proto.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

var _ encoding.Codec = rawCodec{}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: grpc-go-server <answer file>")
		os.Exit(2)
	}
	answer, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	answerUnary := func(_ any, stream grpc.ServerStream) error {
		var request []byte
		if err := stream.RecvMsg(&request); err != nil {
			return err
		}
		return stream.SendMsg(&answer)
	}
	server := grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.UnknownServiceHandler(answerUnary))
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("{\"grpc\": %d}\n", listener.Addr().(*net.TCPAddr).Port)
	if err := server.Serve(listener); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
