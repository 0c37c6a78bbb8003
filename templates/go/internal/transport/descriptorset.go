package transport

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// FileDescriptorSet is the serialized google.protobuf.FileDescriptorSet of the service's proto
// files (without source info), for tools and raw gRPC clients.
func FileDescriptorSet() []byte {
	data, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(fileDescriptorSet), ""))
	if err != nil {
		panic(fmt.Sprintf("%s: the embedded descriptor set is damaged: %v", packageName, err))
	}
	return data
}
