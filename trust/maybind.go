package trust

import "strings"

// MayBind reports whether Bind could find anything in text: a path (a
// slash, or a dot before a letter or digit) or an UPPER_SNAKE name (an
// underscore). An import keeps only such texts for binding, not every
// record it streams.
func MayBind(text string) bool {
	return mayNamePath(text) || strings.IndexByte(text, '_') >= 0
}
