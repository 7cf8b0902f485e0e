package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	sigyaml "sigs.k8s.io/yaml"
)

// Hash is Karpenter's hash of one object of the corpus.
type Hash struct {
	File  string `json:"file"`
	Index int    `json:"index"` // the document's position in File, from 0
	Kind  string `json:"kind"`
	Name  string `json:"name"`
	Hash  string `json:"hash"`
}

// hashFiles hashes every NodePool and EC2NodeClass in files, as Karpenter's hash controllers
// would (the EC2NodeClass hash covers the cluster's CA bundle).
func hashFiles(files []string, caBundle string) ([]Hash, error) {
	var out []Hash
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		reader := yaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for index := 0; ; index++ {
			doc, err := reader.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			var meta struct {
				Kind string `json:"kind"`
			}
			if err := sigyaml.Unmarshal(doc, &meta); err != nil {
				return nil, fmt.Errorf("%s document %d: %w", file, index, err)
			}
			h := Hash{File: file, Index: index, Kind: meta.Kind}
			switch meta.Kind {
			case "NodePool":
				var np karpv1.NodePool
				if err := sigyaml.Unmarshal(doc, &np); err != nil {
					return nil, fmt.Errorf("%s document %d: %w", file, index, err)
				}
				h.Name, h.Hash = np.Name, np.Hash()
			case "EC2NodeClass":
				var nc awsv1.EC2NodeClass
				if err := sigyaml.Unmarshal(doc, &nc); err != nil {
					return nil, fmt.Errorf("%s document %d: %w", file, index, err)
				}
				h.Name, h.Hash = nc.Name, nc.Hash(&caBundle)
			default:
				continue
			}
			out = append(out, h)
		}
	}
	return out, nil
}
