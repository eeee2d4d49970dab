module github.com/lbsim/lbsim

go 1.26.8

require (
	golang.org/x/term v0.48.0
	pgregory.net/rapid v1.3.0
)

require golang.org/x/sys v0.50.0 // indirect
