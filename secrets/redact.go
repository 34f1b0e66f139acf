package secrets

import "strings"

// Redact replaces every secret in text with "[redacted: RULE]" and returns
// the result and what it replaced. It is for whole transcripts, where
// refusing the text would lose a session for one pasted key. The result is
// scanned again until nothing is found (a key split by a replacement can
// leave a shorter one standing); after a few passes whatever still looks
// like a secret is replaced by the marker whole.
func Redact(text string) (string, []Finding) {
	var found []Finding
	for pass := 0; pass < 3; pass++ {
		hits := scanHits(text)
		if len(hits) == 0 {
			return text, found
		}
		found = append(found, locate(text, hits)...)
		var b strings.Builder
		b.Grow(len(text))
		last := 0
		for _, h := range hits {
			h.end = blockEnd(text, h)
			if h.start < last {
				continue // inside the block before
			}
			b.WriteString(text[last:h.start])
			b.WriteString(marker(h.rule))
			last = h.end
		}
		b.WriteString(text[last:])
		text = b.String()
	}
	if len(scanHits(text)) > 0 {
		return marker("secret"), found
	}
	return text, found
}

// marker is what a redacted secret becomes. Its words are plain ones no
// rule takes for a value.
func marker(rule string) string {
	if rule == "" {
		rule = "secret"
	}
	return "[redacted: " + rule + "]"
}

// maxBlock bounds how far a key block's redaction reaches.
const maxBlock = 64 << 10

// blockEnd is where the secret that starts with hit ends. Scan finds a
// private key by its header; the secret is the whole block, to its END
// line (or, cut short, to the end of the key material that follows).
func blockEnd(text string, h hit) int {
	head := text[h.start:h.end]
	var end string
	switch {
	case strings.HasPrefix(head, "-----BEGIN"):
		end = "-----END"
	case strings.HasPrefix(head, "PuTTY-User-Key-File"):
		end = "Private-MAC:"
	default:
		return h.end
	}
	rest := text[h.end:min(len(text), h.end+maxBlock)]
	if i := strings.Index(rest, end); i >= 0 {
		j := h.end + i + len(end)
		if end == "-----END" {
			if k := strings.Index(text[j:min(len(text), j+100)], "-----"); k >= 0 {
				return j + k + len("-----")
			}
		}
		for j < len(text) && text[j] != '\n' && text[j] != '\r' && text[j] != '"' && text[j] != '\\' {
			j++
		}
		return j
	}
	// No end: the key material runs while the characters are those of
	// base64, header lines and the ways a key gets quoted.
	j := h.end
	for j < len(text) && j-h.end < maxBlock && (isBase64(text[j]) || strings.IndexByte(" \t\r\n\\\":-,>#", text[j]) >= 0) {
		j++
	}
	return j
}
