package emulator

import (
	"encoding/xml"
	"net/http"
	"sort"
	"strconv"
	"time"
)

const (
	ec2Version   = "2016-11-15"
	ec2Namespace = "http://ec2.amazonaws.com/doc/2016-11-15/"
	// ec2TimeFormat is how EC2 writes timestamps: ISO 8601 with milliseconds, in UTC.
	ec2TimeFormat = "2006-01-02T15:04:05.000Z"
)

// queryHandler serves one operation of a query protocol (EC2, IAM).
type queryHandler func(e *Emulator, q query) (any, error)

// ec2Handler returns the handler of an EC2 action, or nil.
func ec2Handler(action string) queryHandler {
	switch action {
	case "DescribeInstanceTypes":
		return (*Emulator).describeInstanceTypes
	case "DescribeInstanceTypeOfferings":
		return (*Emulator).describeInstanceTypeOfferings
	case "DescribeSpotPriceHistory":
		return (*Emulator).describeSpotPriceHistory
	case "DescribeAvailabilityZones":
		return (*Emulator).describeAvailabilityZones
	case "DescribeSubnets":
		return (*Emulator).describeSubnets
	case "DescribeSecurityGroups":
		return (*Emulator).describeSecurityGroups
	case "DescribeImages":
		return (*Emulator).describeImages
	case "CreateLaunchTemplate":
		return (*Emulator).createLaunchTemplate
	case "DescribeLaunchTemplates":
		return (*Emulator).describeLaunchTemplates
	case "DeleteLaunchTemplate":
		return (*Emulator).deleteLaunchTemplate
	case "CreateFleet":
		return (*Emulator).createFleet
	case "DescribeInstances":
		return (*Emulator).describeInstances
	case "TerminateInstances":
		return (*Emulator).terminateInstances
	case "CreateTags":
		return (*Emulator).createTags
	case "RunInstances":
		return (*Emulator).runInstances
	case "DescribeInstanceStatus":
		return (*Emulator).describeInstanceStatus
	case "DescribeCapacityReservations":
		return (*Emulator).describeCapacityReservations
	case "DescribePlacementGroups":
		return (*Emulator).describePlacementGroups
	}
	return nil
}

// ec2Response is embedded in every EC2 response body: the namespace and the request id.
type ec2Response struct {
	XMLNS     string `xml:"xmlns,attr"`
	RequestID string `xml:"requestId"`
}

func (r *ec2Response) setMeta(namespace, requestID string) {
	r.XMLNS, r.RequestID = namespace, requestID
}

type metaSetter interface {
	setMeta(namespace, requestID string)
}

// writeEC2 writes <ActionResponse> with the fields of out.
func writeEC2(w http.ResponseWriter, action, requestID string, out any) {
	if m, ok := out.(metaSetter); ok {
		m.setMeta(ec2Namespace, requestID)
	}
	writeXML(w, http.StatusOK, out, xml.StartElement{Name: xml.Name{Local: action + "Response"}})
}

type ec2ErrorBody struct {
	XMLName   xml.Name `xml:"Response"`
	Errors    []xmlErr `xml:"Errors>Error"`
	RequestID string   `xml:"RequestID"`
}

type xmlErr struct {
	Code    string `xml:"Code"`
	Message string `xml:"Message"`
}

// writeEC2Error writes EC2's error shape: Response/Errors/Error with Code and Message.
func writeEC2Error(w http.ResponseWriter, requestID string, err *apiError) {
	body := ec2ErrorBody{Errors: []xmlErr{{Code: err.code, Message: err.message}}, RequestID: requestID}
	writeXML(w, err.status, body, xml.StartElement{Name: xml.Name{Local: "Response"}})
}

func writeXML(w http.ResponseWriter, status int, v any, start xml.StartElement) {
	out, err := xml.Marshal(v)
	if start.Name.Local != "" {
		out, err = marshalXMLAs(v, start)
	}
	if err != nil {
		http.Error(w, "emulator: encode response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(xml.Header))
	_, _ = w.Write(out)
}

func marshalXMLAs(v any, start xml.StartElement) ([]byte, error) {
	var buf byteBuffer
	enc := xml.NewEncoder(&buf)
	if err := enc.EncodeElement(v, start); err != nil {
		return nil, err
	}
	if err := enc.Flush(); err != nil {
		return nil, err
	}
	return buf, nil
}

type byteBuffer []byte

func (b *byteBuffer) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

// xmlTag is one item of a tagSet.
type xmlTag struct {
	Key   string `xml:"key"`
	Value string `xml:"value"`
}

// tagSet lists tags sorted by key.
func tagSet(tags map[string]string) []xmlTag {
	out := make([]xmlTag, 0, len(tags))
	for k, v := range tags {
		out = append(out, xmlTag{Key: k, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func ec2Time(t time.Time) string { return t.UTC().Format(ec2TimeFormat) }

func formatFloat(f float64, decimals int) string { return strconv.FormatFloat(f, 'f', decimals, 64) }

func errInvalidParameterValue(msg string) *apiError {
	return newError(0, "InvalidParameterValue", msg)
}

func errMissingParameter(name string) *apiError {
	return newError(0, "MissingParameter", "The request must contain the parameter "+name)
}

// maxResults reads MaxResults within [lo, hi]; absent gives def.
func maxResults(q query, lo, hi, def int) (int, *apiError) {
	n, ok, err := q.intParam("MaxResults")
	if err != nil {
		return 0, err
	}
	if !ok {
		return def, nil
	}
	if n < lo || n > hi {
		return 0, errInvalidParameterValue("Value ( " + strconv.Itoa(n) + " ) for parameter maxResults is invalid. Expecting a value between " +
			strconv.Itoa(lo) + " and " + strconv.Itoa(hi) + ".")
	}
	return n, nil
}
