// Command modzip writes the module zip of a Go module folder (the file the Go module proxy serves
// as <module>/@v/<version>.zip) with golang.org/x/mod/zip, which enforces the go command's rules,
// and checks the zip it wrote:
//
//	modzip -module github.com/acme/identity-go/v2 -version v2.4.0 -dir generated/go -out identity-go-v2.4.0.zip
package main

import (
	"flag"
	"fmt"
	"os"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	path := flag.String("module", "", "module path")
	version := flag.String("version", "", "version, such as v2.4.0")
	dir := flag.String("dir", "", "module folder (holding go.mod)")
	out := flag.String("out", "", "zip file to write")
	flag.Parse()
	if err := write(module.Version{Path: *path, Version: *version}, *dir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "modzip:", err)
		os.Exit(1)
	}
}

func write(version module.Version, dir, out string) error {
	if err := module.Check(version.Path, version.Version); err != nil {
		return err
	}
	file, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := zip.CreateFromDir(file, version, dir); err != nil {
		file.Close()
		os.Remove(out)
		return err
	}
	if err := file.Close(); err != nil {
		return err
	}
	checked, err := zip.CheckZip(version, out)
	if err != nil {
		return err
	}
	if err := checked.Err(); err != nil {
		return err
	}
	for _, f := range checked.Valid {
		fmt.Println(f)
	}
	return nil
}
