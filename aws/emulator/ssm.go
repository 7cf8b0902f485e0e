package emulator

import (
	"context"
	"strings"
)

type getParameterOutput struct {
	Parameter ssmParameter
}

type ssmParameter struct {
	ARN              string
	DataType         string
	LastModifiedDate float64
	Name             string
	Type             string
	Value            string
	Version          int64
}

// getParameter serves the public EKS optimized AMI and Bottlerocket parameters (see
// world.addImages); any other name is ParameterNotFound.
func (e *Emulator) getParameter(_ context.Context, body []byte) (any, error) {
	var in struct {
		Name           string
		WithDecryption bool
	}
	if err := decodeJSON(body, &in); err != nil {
		return nil, err
	}
	if in.Name == "" {
		return nil, newError(0, "ValidationException", "1 validation error detected: Value null at 'name' failed to satisfy constraint: Member must not be null")
	}
	name, _, _ := strings.Cut(in.Name, ":") // a ":version" or ":label" selector names the same parameter
	e.mu.Lock()
	defer e.mu.Unlock()
	id, ok := e.world.parameters[name]
	if !ok {
		return nil, newError(0, "ParameterNotFound", "Parameter "+in.Name+" not found.")
	}
	return getParameterOutput{Parameter: ssmParameter{
		ARN: "arn:aws:ssm:" + e.cfg.Region + "::parameter" + name, DataType: "text",
		LastModifiedDate: float64(amiReleaseDate.Unix()), Name: name, Type: "String", Value: id, Version: 1,
	}}, nil
}
