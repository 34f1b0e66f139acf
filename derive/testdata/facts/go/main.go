// Command shop serves the shop.
package main

func main() {}
