// csv.ts — a small RFC 4180 reader for result tables (quoted fields,
// doubled quotes, CRLF), stopping after maxRows data rows.
export interface Table {
  header: string[];
  rows: string[][];
  truncated: boolean;
}

export function parseCsv(text: string, maxRows = 500): Table {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  let i = 0;
  const endRecord = () => {
    record.push(field);
    field = '';
    if (!(record.length === 1 && record[0] === '')) records.push(record);
    record = [];
  };
  for (; i < text.length && records.length <= maxRows; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
    } else field += c;
  }
  const truncated = records.length > maxRows;
  if (!truncated && (field !== '' || record.length)) endRecord();
  const [header = [], ...rows] = records;
  return { header, rows: rows.slice(0, maxRows), truncated };
}
