// Downloads are built in the page from the result already received: no second request, no server copy.

const csvCell = (value) => {
  if (value === null || value === undefined) {
    return '';
  }
  if (typeof value === 'number') {
    return String(value);
  }
  let text = String(value);
  // A spreadsheet would run a cell starting with = + - @ as a formula; the apostrophe keeps it text.
  if (/^[=+\-@\t\r]/.test(text)) {
    text = `'${text}`;
  }
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** RFC 4180 CSV: a header row of the field names, CRLF line ends. */
export const toCsv = (records, fields) => {
  const lines = [fields.map(csvCell).join(',')];
  for (const record of records) {
    lines.push(fields.map((field) => csvCell(record[field])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
};

export const downloadText = (filename, type, text) => {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked after the click has been handled, so the download has its bytes.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
};
