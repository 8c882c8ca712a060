//! Golden files from the `parquet` crate (arrow-rs), beside the ones Spark
//! writes (../generate.py):
//!
//! - `write DIR`: a Parquet file of the same columns and rows as Spark's,
//!   with an SBBF on every column, and for each column its bloom filter's
//!   offset and length and `Sbbf::check`'s answers on the 10^5 queries.
//! - `read DIR`: `Sbbf::new` loads each bare bitset our code wrote
//!   (`ours-KIND-N.bitset`) and `Sbbf::from_bytes` each header-and-bitset
//!   (`ours-KIND-N.bytes`), and records `check`'s answers.

use std::fs::{self, File};
use std::path::Path;
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::bloom_filter::Sbbf;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, FloatType, Int32Type, Int64Type};
use parquet::file::properties::{ReaderProperties, WriterProperties};
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

#[path = "../../../../crates/bloom/tests/spark_parquet_values/mod.rs"]
mod values;

use values::{QUERIES, binary, bitmap, float32, float64, int32, splitmix, string};

const ROWS: usize = 10_000;
type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// `check` of each query value of column `kind`.
fn answers(f: &Sbbf, kind: &str) -> Vec<u8> {
    let qs = splitmix(2, QUERIES);
    let a: Vec<bool> = qs
        .iter()
        .enumerate()
        .map(|(i, &v)| match kind {
            "long" => f.check(&v),
            "int" => f.check(&int32(v)),
            "float" => f.check(&float32(v)),
            "double" => f.check(&float64(v)),
            "string" => f.check(string(v, i).as_str()),
            "binary" => f.check(binary(v).as_slice()),
            other => panic!("unknown kind {other}"),
        })
        .collect();
    bitmap(&a)
}

fn write(dir: &Path) -> Result<()> {
    let schema = Arc::new(parse_message_type(
        "message spark_schema {
            required int64 id; required binary name (UTF8); required int32 i;
            required float f; required double d; required binary b;
        }",
    )?);
    let props = WriterProperties::builder()
        .set_compression(Compression::UNCOMPRESSED)
        .set_dictionary_enabled(false)
        .set_bloom_filter_enabled(true)
        .set_bloom_filter_max_ndv(ROWS as u64)
        .set_bloom_filter_fpp(0.01)
        .build();
    let path = dir.join(format!("parquet-rs-{ROWS}.parquet"));
    let mut writer = SerializedFileWriter::new(File::create(&path)?, schema, Arc::new(props))?;
    let vs = splitmix(1, ROWS);
    let mut group = writer.next_row_group()?;
    let mut index = 0;
    while let Some(mut column) = group.next_column()? {
        match index {
            0 => column.typed::<Int64Type>().write_batch(&vs, None, None)?,
            1 => {
                let names: Vec<ByteArray> = vs
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| ByteArray::from(string(v, i).as_str()))
                    .collect();
                column
                    .typed::<ByteArrayType>()
                    .write_batch(&names, None, None)?
            }
            2 => {
                let xs: Vec<i32> = vs.iter().map(|&v| int32(v)).collect();
                column.typed::<Int32Type>().write_batch(&xs, None, None)?
            }
            3 => {
                let xs: Vec<f32> = vs.iter().map(|&v| float32(v)).collect();
                column.typed::<FloatType>().write_batch(&xs, None, None)?
            }
            4 => {
                let xs: Vec<f64> = vs.iter().map(|&v| float64(v)).collect();
                column.typed::<DoubleType>().write_batch(&xs, None, None)?
            }
            _ => {
                let xs: Vec<ByteArray> = vs.iter().map(|&v| ByteArray::from(binary(v))).collect();
                column
                    .typed::<ByteArrayType>()
                    .write_batch(&xs, None, None)?
            }
        };
        column.close()?;
        index += 1;
    }
    group.close()?;
    writer.close()?;

    let options = ReadOptionsBuilder::new()
        .with_reader_properties(
            ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    let reader = SerializedFileReader::new_with_options(File::open(&path)?, options)?;
    let group = reader.get_row_group(0)?;
    let mut manifest = String::new();
    let kinds = ["long", "string", "int", "float", "double", "binary"];
    for (i, column) in reader.metadata().row_group(0).columns().iter().enumerate() {
        let name = column.column_path().string();
        let f = group.get_column_bloom_filter(i).ok_or("no bloom filter")?;
        let stem = format!("parquet-rs-{ROWS}-{name}");
        fs::write(dir.join(format!("{stem}.answers")), answers(f, kinds[i]))?;
        manifest += &format!(
            "{name} {} {} {} {}\n",
            kinds[i],
            column.bloom_filter_offset().ok_or("no offset")?,
            column.bloom_filter_length().ok_or("no length")?,
            f.num_blocks() * 32,
        );
    }
    fs::write(dir.join(format!("parquet-rs-{ROWS}.manifest")), &manifest)?;
    print!("{manifest}");
    Ok(())
}

fn read(dir: &Path) -> Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        let Some(stem) = name.strip_prefix("ours-") else {
            continue;
        };
        let kind = stem.split('-').next().unwrap_or_default();
        let f = if name.ends_with(".bitset") {
            Sbbf::new(&fs::read(&path)?)
        } else if name.ends_with(".bytes") {
            Sbbf::from_bytes(&fs::read(&path)?)?
        } else {
            continue;
        };
        fs::write(
            path.with_extension(format!(
                "{}.parquet-rs-answers",
                path.extension().unwrap().to_str().unwrap()
            )),
            answers(&f, kind),
        )?;
        println!("{name}: answers recorded");
    }
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let dir = Path::new(args.get(2).ok_or("usage: parquet-golden write|read DIR")?);
    match args[1].as_str() {
        "write" => write(dir),
        "read" => read(dir),
        other => Err(format!("unknown command {other}").into()),
    }
}
