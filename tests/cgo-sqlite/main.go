// Command cgo-sqlite opens an in-memory SQLite database through cgo,
// creates a table, inserts rows and selects them back, printing one line
// per row and a final "ok" when everything matched.
package main

import (
	"database/sql"
	"fmt"
	"log"

	_ "github.com/mattn/go-sqlite3"
)

func main() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE points (name TEXT PRIMARY KEY, x REAL, y REAL)`); err != nil {
		log.Fatal(err)
	}
	rows := []struct {
		name string
		x, y float64
	}{{"origin", 0, 0}, {"unit", 1, 0}, {"far", 3, 4}}
	for _, r := range rows {
		if _, err := db.Exec(`INSERT INTO points VALUES (?, ?, ?)`, r.name, r.x, r.y); err != nil {
			log.Fatal(err)
		}
	}
	res, err := db.Query(`SELECT name, x*x + y*y FROM points ORDER BY name`)
	if err != nil {
		log.Fatal(err)
	}
	defer res.Close()
	n := 0
	for res.Next() {
		var name string
		var norm2 float64
		if err := res.Scan(&name, &norm2); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s %g\n", name, norm2)
		n++
	}
	if err := res.Err(); err != nil {
		log.Fatal(err)
	}
	var version string
	if err := db.QueryRow(`SELECT sqlite_version()`).Scan(&version); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("sqlite %s, %d rows\nok\n", version, n)
}
