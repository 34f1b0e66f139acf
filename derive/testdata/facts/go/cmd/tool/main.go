/*
A block comment

	before the clause.
*/
package main

func main() {}
