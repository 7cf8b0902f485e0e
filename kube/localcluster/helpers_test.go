package localcluster

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// processState returns the state letter of process pid from /proc (R, S, Z...), or "" if it does
// not exist.
func processState(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// pid (comm) state ...: comm may hold spaces and parentheses, so cut after the last ')'.
	rest := string(data[strings.LastIndexByte(string(data), ')')+1:])
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return ""
	}
	return fields[0]
}

// alive reports whether pid is a process that has not exited (a zombie has).
func alive(pid int) bool {
	state := processState(pid)
	return state != "" && state != "Z" && state != "X"
}

// rssMiB returns the resident set size of pid in MiB, from /proc/PID/status.
func rssMiB(pid int) (float64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) == 3 && fields[0] == "VmRSS:" && fields[2] == "kB" {
			kb, err := strconv.Atoi(fields[1])
			if err != nil {
				return 0, fmt.Errorf("pid %d: VmRSS %q: %w", pid, fields[1], err)
			}
			return float64(kb) / 1024, nil
		}
	}
	return 0, fmt.Errorf("pid %d: no VmRSS in /proc/%d/status", pid, pid)
}
