package emulator

import (
	"encoding/xml"
	"net/http"
)

const (
	iamVersion   = "2010-05-08"
	iamNamespace = "https://iam.amazonaws.com/doc/2010-05-08/"
)

// iamHandler returns the handler of an IAM action, or nil.
func iamHandler(action string) queryHandler {
	switch action {
	case "GetInstanceProfile":
		return (*Emulator).getInstanceProfile
	case "CreateInstanceProfile":
		return (*Emulator).createInstanceProfile
	case "AddRoleToInstanceProfile":
		return (*Emulator).addRoleToInstanceProfile
	case "RemoveRoleFromInstanceProfile":
		return (*Emulator).removeRoleFromInstanceProfile
	case "GetRole":
		return (*Emulator).getRole
	case "TagInstanceProfile":
		return (*Emulator).tagInstanceProfile
	case "DeleteInstanceProfile":
		return (*Emulator).deleteInstanceProfile
	case "ListInstanceProfiles":
		return (*Emulator).listInstanceProfiles
	}
	return nil
}

type iamMetadata struct {
	RequestID string `xml:"RequestId"`
}

// writeIAM writes <ActionResponse><ActionResult>out</ActionResult><ResponseMetadata>.
func writeIAM(w http.ResponseWriter, action, requestID string, out any) {
	var buf byteBuffer
	enc := xml.NewEncoder(&buf)
	start := xml.StartElement{Name: xml.Name{Local: action + "Response"}, Attr: []xml.Attr{{Name: xml.Name{Local: "xmlns"}, Value: iamNamespace}}}
	err := enc.EncodeToken(start)
	if err == nil && out != nil {
		err = enc.EncodeElement(out, xml.StartElement{Name: xml.Name{Local: action + "Result"}})
	}
	if err == nil {
		err = enc.EncodeElement(iamMetadata{RequestID: requestID}, xml.StartElement{Name: xml.Name{Local: "ResponseMetadata"}})
	}
	if err == nil {
		err = enc.EncodeToken(start.End())
	}
	if err == nil {
		err = enc.Flush()
	}
	if err != nil {
		http.Error(w, "emulator: encode response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf)
}

type iamErrorBody struct {
	XMLName   xml.Name `xml:"ErrorResponse"`
	XMLNS     string   `xml:"xmlns,attr"`
	Error     iamErr   `xml:"Error"`
	RequestID string   `xml:"RequestId"`
}

type iamErr struct {
	Type    string `xml:"Type"`
	Code    string `xml:"Code"`
	Message string `xml:"Message"`
}

// writeIAMError writes the query protocol's ErrorResponse.
func writeIAMError(w http.ResponseWriter, requestID string, err *apiError) {
	typ := "Sender"
	if err.status >= 500 {
		typ = "Receiver"
	}
	body := iamErrorBody{XMLNS: iamNamespace, Error: iamErr{Type: typ, Code: err.code, Message: err.message}, RequestID: requestID}
	writeXML(w, err.status, body, xml.StartElement{})
}
