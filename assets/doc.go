// Package assets holds everything the renderer draws that is not computed:
// the Go fonts (Go Regular and Go Bold, from golang.org/x/image/font/gofont,
// under the Go fonts' BSD-style licence in fonts/LICENSE-README), embedded in
// the binary so the page and the window need no files at run time. The copies
// here are made by go generate (internal/fontstrip): without the hinting
// programs and glyph names, which the renderer never reads (the same pixels,
// half the bytes).
package assets
