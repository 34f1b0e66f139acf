// Command serve serves.
package main

func main() {}
