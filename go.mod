module github.com/lbsim/lbsim

go 1.26.8
