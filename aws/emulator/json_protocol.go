package emulator

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// jsonHandler serves one operation of a JSON protocol (SQS, SSM, Pricing).
type jsonHandler func(e *Emulator, ctx context.Context, body []byte) (any, error)

// jsonHandlerFor returns the handler of a JSON operation of svc, or nil.
func jsonHandlerFor(svc service, op string) jsonHandler {
	switch svc {
	case serviceSQS:
		switch op {
		case "GetQueueUrl":
			return (*Emulator).getQueueURL
		case "CreateQueue":
			return (*Emulator).createQueue
		case "SendMessage":
			return (*Emulator).sendMessage
		case "ReceiveMessage":
			return (*Emulator).receiveMessage
		case "DeleteMessage":
			return (*Emulator).deleteMessage
		}
	case serviceSSM:
		if op == "GetParameter" {
			return (*Emulator).getParameter
		}
	case servicePricing:
		if op == "GetProducts" {
			return (*Emulator).getProducts
		}
	}
	return nil
}

func jsonContentType(svc service) string {
	if svc == serviceSQS {
		return "application/x-amz-json-1.0"
	}
	return "application/x-amz-json-1.1"
}

func writeJSON(w http.ResponseWriter, svc service, requestID string, out any) {
	b, err := json.Marshal(out)
	if err != nil {
		http.Error(w, "emulator: encode response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", jsonContentType(svc))
	w.Header().Set("X-Amzn-RequestId", requestID)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// sqsQueryCode maps SQS's JSON error names to the codes of its older query protocol, which
// the SDK reads from the x-amzn-query-error header (AWS's awsQueryCompatible trait).
func sqsQueryCode(code string) string {
	switch code {
	case "QueueDoesNotExist":
		return "AWS.SimpleQueueService.NonExistentQueue"
	case "QueueNameExists":
		return "QueueAlreadyExists"
	case "UnsupportedOperation":
		return "AWS.SimpleQueueService.UnsupportedOperation"
	case "AccessDeniedException":
		return "AccessDenied"
	}
	return code
}

// sqsModelled reports whether the SQS model names the error (the others are validation errors).
func sqsModelled(code string) bool {
	switch code {
	case "QueueDoesNotExist", "QueueNameExists", "ReceiptHandleIsInvalid", "RequestThrottled", "InvalidAddress",
		"OverLimit", "UnsupportedOperation", "InvalidSecurity", "ResourceNotFoundException", "MessageNotInflight":
		return true
	}
	return false
}

// writeJSONError writes {"__type": ..., "message": ...}; for SQS also the x-amzn-query-error
// header that carries the query-protocol code and fault.
func writeJSONError(w http.ResponseWriter, svc service, requestID string, err *apiError) {
	typ := err.code
	if svc == serviceSQS {
		fault := "Sender"
		if err.status >= 500 {
			fault = "Receiver"
		}
		w.Header().Set("X-Amzn-Query-Error", sqsQueryCode(err.code)+";"+fault)
		if sqsModelled(err.code) {
			typ = "com.amazonaws.sqs#" + err.code
		} else if !strings.Contains(typ, "#") {
			typ = "com.amazon.coral.service#" + err.code
		}
	}
	b, _ := json.Marshal(map[string]string{"__type": typ, "message": err.message})
	w.Header().Set("Content-Type", jsonContentType(svc))
	w.Header().Set("X-Amzn-RequestId", requestID)
	w.WriteHeader(err.status)
	_, _ = w.Write(b)
}

// decodeJSON reads a request body into v; a malformed body is a SerializationException.
func decodeJSON(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return newError(0, "SerializationException", "cannot read the request: "+err.Error())
	}
	return nil
}
