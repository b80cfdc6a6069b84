const S = require("/work/main/node_modules/better-sqlite3");
try { const db = new S("/tmp/t1/st/journal.db", { readonly: true, fileMustExist: true }); console.log(db.prepare("SELECT count(*) c FROM journal").get()); } catch (e) { console.log("ERR", e.code, e.message); }
