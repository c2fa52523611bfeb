// Where an action was sent from, as the page shows it: `file:line`, or the file alone for line 0
// (an action the inspector dispatched: it has no line in the app's source).
export function siteText(site) {
  return site.line ? `${site.file}:${site.line}` : site.file;
}
