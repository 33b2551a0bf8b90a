//! Tables of named columns as the files of runs, studies and saved agents hold them, without a
//! dataframe library: what the Parquet codecs ([`crate::io::parquet`]) write and read, and CSV
//! text written here, byte for byte as polars writes it (a header line, `,` between fields, `\n`
//! after each row; a string quoted only where it holds a `,`, a quote or a line break, its
//! quotes doubled, an empty string as `""` and a null as nothing; integers in decimal; floats in
//! the shortest form that parses back to the same `f64`, `1.0` for one, `1e-7` for 10^-7, `NaN`
//! and `inf` for the others).

use std::collections::HashMap;
use std::io::Write;

use anyhow::{Result, anyhow, ensure};

/// Strings coded by their place in `names` (a dictionary), nulls as `None`: a column of a few
/// names repeated (a learner, a metric, a position's key per move) keeps each name once.
#[derive(Clone, Debug, Default)]
pub struct Text {
    names: Vec<String>,
    codes: Vec<Option<u32>>,
    index: HashMap<String, u32>,
}

/// Equal when their rows read the same strings, however coded.
impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Text {
    /// A column of `n` rows that all read `value`.
    pub fn constant(value: &str, n: usize) -> Text {
        Text::coded(vec![value.to_string()], vec![Some(0); n])
    }

    /// A column of `codes` into `names` (a code past the names is refused when the column is
    /// read or written).
    pub fn coded(names: Vec<String>, codes: Vec<Option<u32>>) -> Text {
        Text {
            names,
            codes,
            index: HashMap::new(),
        }
    }

    /// Appends `value` (a null for `None`), coding a name not seen before.
    pub fn push(&mut self, value: Option<&str>) {
        let code = value.map(|v| {
            if self.index.is_empty() && !self.names.is_empty() {
                // A column made by `coded`: index its names before the first push (a name
                // written twice keeps its first code).
                for (i, name) in self.names.iter().enumerate().rev() {
                    self.index.insert(name.clone(), i as u32);
                }
            }
            match self.index.get(v) {
                Some(&i) => i,
                None => {
                    let i = u32::try_from(self.names.len()).expect("fewer than 2^32 names");
                    self.names.push(v.to_string());
                    self.index.insert(v.to_string(), i);
                    i
                }
            }
        });
        self.codes.push(code);
    }

    pub fn len(&self) -> usize {
        self.codes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// Row `i`'s string, `None` for a null.
    pub fn get(&self, i: usize) -> Option<&str> {
        self.codes[i].map(|c| self.names[c as usize].as_str())
    }

    /// The rows' strings in order.
    pub fn iter(&self) -> impl Iterator<Item = Option<&str>> + '_ {
        self.codes
            .iter()
            .map(|c| c.map(|c| self.names[c as usize].as_str()))
    }

    /// The dictionary and the codes into it.
    pub fn parts(&self) -> (&[String], &[Option<u32>]) {
        (&self.names, &self.codes)
    }

    fn check(&self) -> Result<()> {
        let n = self.names.len();
        match self.codes.iter().flatten().find(|&&c| c as usize >= n) {
            Some(c) => Err(anyhow!("a string column's code {c} is past its {n} names")),
            None => Ok(()),
        }
    }
}

/// A column's values.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Strings (Parquet `large_string`).
    Text(Text),
    /// Unsigned 32-bit integers, nullable.
    U32(Vec<Option<u32>>),
    /// Unsigned 64-bit integers.
    U64(Vec<u64>),
    /// 64-bit floats.
    F64(Vec<f64>),
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::Text(t) => t.len(),
            Values::U32(v) => v.len(),
            Values::U64(v) => v.len(),
            Values::F64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The type's name as a reader is told it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Values::Text(_) => "string",
            Values::U32(_) => "u32",
            Values::U64(_) => "u64",
            Values::F64(_) => "f64",
        }
    }
}

/// Named columns of one length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Values)>,
}

impl Table {
    /// The table of `columns`, checked to be of one length with codes inside their names.
    pub fn new(columns: Vec<(String, Values)>) -> Result<Table> {
        let table = Table { columns };
        table.check()?;
        Ok(table)
    }

    fn check(&self) -> Result<()> {
        if let Some((first, values)) = self.columns.first() {
            let n = values.len();
            for (name, values) in &self.columns {
                ensure!(
                    values.len() == n,
                    "column `{name}` has {} rows where `{first}` has {n}",
                    values.len()
                );
                if let Values::Text(t) = values {
                    t.check()?;
                }
            }
        }
        Ok(())
    }

    /// Its rows.
    pub fn len(&self) -> usize {
        self.columns.first().map_or(0, |(_, v)| v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The column called `name`; an error names it when there is none.
    pub fn column(&self, name: &str) -> Result<&Values> {
        self.columns
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
            .ok_or_else(|| anyhow!("no column `{name}`"))
    }

    /// Writes the rows as CSV (with the header line first when `header`) to `out`.
    pub fn write_csv(&self, out: &mut impl Write, header: bool) -> Result<()> {
        self.check()?;
        let mut line = Vec::with_capacity(256);
        if header {
            for (j, (name, _)) in self.columns.iter().enumerate() {
                if j > 0 {
                    line.push(b',');
                }
                csv_string(&mut line, name);
            }
            line.push(b'\n');
            out.write_all(&line)?;
        }
        let mut floats = zmij::Buffer::new();
        let mut ints = itoa::Buffer::new();
        for i in 0..self.len() {
            line.clear();
            for (j, (_, values)) in self.columns.iter().enumerate() {
                if j > 0 {
                    line.push(b',');
                }
                match values {
                    Values::Text(t) => {
                        if let Some(s) = t.get(i) {
                            csv_string(&mut line, s);
                        }
                    }
                    Values::U32(v) => {
                        if let Some(x) = v[i] {
                            line.extend_from_slice(ints.format(x).as_bytes());
                        }
                    }
                    Values::U64(v) => line.extend_from_slice(ints.format(v[i]).as_bytes()),
                    Values::F64(v) => line.extend_from_slice(floats.format(v[i]).as_bytes()),
                }
            }
            line.push(b'\n');
            out.write_all(&line)?;
        }
        Ok(())
    }

    /// The rows as CSV text, with the header line.
    pub fn to_csv(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write_csv(&mut out, true)?;
        Ok(out)
    }
}

/// `s` as a CSV field: quoted where it holds a separator, a quote or a line break (its quotes
/// doubled), `""` when empty (which a null is not).
fn csv_string(out: &mut Vec<u8>, s: &str) {
    if s.is_empty() {
        out.extend_from_slice(b"\"\"");
        return;
    }
    let quote = s.bytes().any(|b| matches!(b, b',' | b'\n' | b'\r'));
    let has_quotes = s.contains('"');
    if !quote && !has_quotes {
        out.extend_from_slice(s.as_bytes());
        return;
    }
    out.push(b'"');
    out.extend_from_slice(s.replace('"', "\"\"").as_bytes());
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(values: &[Option<&str>]) -> Values {
        let mut t = Text::default();
        for v in values {
            t.push(*v);
        }
        Values::Text(t)
    }

    #[test]
    fn csv_quotes_only_where_needed() {
        let table = Table::new(vec![
            (
                "name".into(),
                text(&[
                    Some("plain"),
                    Some("a,b"),
                    Some("say \"hi\""),
                    Some(""),
                    None,
                ]),
            ),
            (
                "n".into(),
                Values::U32(vec![Some(1), None, Some(3), Some(4), Some(u32::MAX)]),
            ),
            (
                "x".into(),
                Values::F64(vec![1.0, 1e-7, 0.1, f64::NAN, -f64::INFINITY]),
            ),
        ])
        .unwrap();
        let csv = String::from_utf8(table.to_csv().unwrap()).unwrap();
        assert_eq!(
            csv,
            "name,n,x\nplain,1,1.0\n\"a,b\",,1e-7\n\"say \"\"hi\"\"\",3,0.1\n\"\",4,NaN\n,4294967295,-inf\n"
        );
    }

    #[test]
    fn text_codes_each_name_once() {
        let mut t = Text::coded(vec!["a".into()], vec![Some(0)]);
        t.push(Some("b"));
        t.push(Some("a"));
        t.push(None);
        assert_eq!(t.parts().0, ["a", "b"]);
        assert_eq!(
            t.iter().collect::<Vec<_>>(),
            [Some("a"), Some("b"), Some("a"), None]
        );
    }

    #[test]
    fn tables_of_unequal_columns_are_refused() {
        let err = Table::new(vec![
            ("a".into(), Values::U64(vec![1, 2])),
            ("b".into(), Values::F64(vec![1.0])),
        ])
        .unwrap_err();
        assert!(
            err.to_string().contains("`b` has 1 rows where `a` has 2"),
            "{err}"
        );
        let bad = Text::coded(vec!["a".into()], vec![Some(1)]);
        assert!(Table::new(vec![("t".into(), Values::Text(bad))]).is_err());
    }
}
