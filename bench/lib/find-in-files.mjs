// napi's findInFiles as one promise: it calls back once per file with matches and resolves its
// own promise with the number of files it will call back for, in either order.

/** Settles when every callback has come; gives the files called back for and the nodes found. */
export function findInFiles(napi, lang, config) {
  return new Promise((resolve, reject) => {
    let files = 0;
    let nodes = 0;
    let sent = Infinity;
    const done = () => files >= sent && resolve({ files, nodes });
    napi
      .findInFiles(lang, config, (err, found) => {
        if (err) return reject(err);
        files++;
        nodes += found.length;
        done();
      })
      .then((n) => {
        sent = n;
        done();
      }, reject);
  });
}
