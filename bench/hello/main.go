// Command hello is the baseline of the start-up benchmarks: a Go
// hello-world, built the same way as daokit (bench/run.sh), so that
// daokit's figures read as a multiple of the least any Go command costs.
package main

import "fmt"

func main() { fmt.Println("hello") }
