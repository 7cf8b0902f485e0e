package v1

import (
	"reflect"
	"testing"
)

func TestSetDefaults(t *testing.T) {
	full := &MetadataOptions{HTTPEndpoint: ptr("enabled"), HTTPProtocolIPv6: ptr("disabled"), HTTPPutResponseHopLimit: ptr(int64(1)), HTTPTokens: ptr("required")}
	tests := []struct {
		name string
		in   *MetadataOptions
		want *MetadataOptions
	}{
		{"unset gets the CRD default object", nil, full},
		{"set fields are kept, others defaulted", &MetadataOptions{HTTPPutResponseHopLimit: ptr(int64(2)), HTTPTokens: ptr("optional")},
			&MetadataOptions{HTTPEndpoint: ptr("enabled"), HTTPProtocolIPv6: ptr("disabled"), HTTPPutResponseHopLimit: ptr(int64(2)), HTTPTokens: ptr("optional")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nc := &EC2NodeClass{Spec: EC2NodeClassSpec{MetadataOptions: tt.in}}
			nc.SetDefaults()
			if !reflect.DeepEqual(nc.Spec.MetadataOptions, tt.want) {
				t.Errorf("metadataOptions = %+v, want %+v", *nc.Spec.MetadataOptions, *tt.want)
			}
		})
	}
}
