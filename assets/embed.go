package assets

//go:generate go run ../internal/cmd/fontstrip fonts

import _ "embed"

// GoRegular is the TrueType data of the Go Regular font.
//
//go:embed fonts/Go-Regular.ttf
var GoRegular []byte

// GoBold is the TrueType data of the Go Bold font.
//
//go:embed fonts/Go-Bold.ttf
var GoBold []byte
