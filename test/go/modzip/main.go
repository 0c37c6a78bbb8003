// Command modzip writes and reads module zips (the file the Go module proxy serves as
// <module>/@v/<version>.zip) with golang.org/x/mod/zip, which enforces the go command's rules:
//
//	modzip create -module github.com/acme/identity-go/v2 -version v2.4.0 -dir generated/go -zip identity-go-2.4.0.zip
//	modzip extract -module github.com/acme/identity-go/v2 -version v2.4.0 -zip identity-go-2.4.0.zip -dir /tmp/identity-go
//
// create checks the zip it wrote and prints the files in it, one a line.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: modzip create|extract -module M -version V ...")
		os.Exit(2)
	}
	flags := flag.NewFlagSet("modzip "+os.Args[1], flag.ExitOnError)
	path := flags.String("module", "", "module path")
	version := flags.String("version", "", "version, such as v2.4.0")
	dir := flags.String("dir", "", "module folder (holding go.mod)")
	file := flags.String("zip", "", "module zip")
	flags.Parse(os.Args[2:])
	m := module.Version{Path: *path, Version: *version}
	err := module.Check(m.Path, m.Version)
	if err == nil {
		switch os.Args[1] {
		case "create":
			err = create(m, *dir, *file)
		case "extract":
			err = zip.Unzip(*dir, m, *file)
		default:
			err = errors.New("unknown command " + os.Args[1])
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "modzip:", err)
		os.Exit(1)
	}
}

func create(m module.Version, dir, out string) error {
	file, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := zip.CreateFromDir(file, m, dir); err != nil {
		file.Close()
		os.Remove(out)
		return err
	}
	if err := file.Close(); err != nil {
		return err
	}
	checked, err := zip.CheckZip(m, out)
	if err == nil {
		err = checked.Err()
	}
	if err != nil {
		os.Remove(out)
		return err
	}
	for _, name := range checked.Valid {
		fmt.Println(name)
	}
	return nil
}
