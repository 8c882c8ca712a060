"""Regenerates the interop golden files in crates/bloom/tests/data/{spark,parquet}.

Not run in CI. See README.md for the setup (pyspark from PyPI, Java 17, a
Rust toolchain for the parquet-crate half) and the order of the steps.

    python generate.py spark        # Spark's filters, v1 and v2, with answers
    python generate.py spark-read   # Spark reads the filters our code wrote
    python generate.py parquet      # Spark writes Parquet with SBBFs; parquet-mr answers
    python generate.py parquet-read # parquet-mr reads the bitsets our code wrote
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from values import QUERIES, answers_bitmap, binary, float32, float64, int32, splitmix, string

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "crates" / "bloom" / "tests" / "data"
PARQUET_ROWS = 10_000


def jars():
    import pyspark

    return Path(pyspark.__file__).parent / "jars"


def java(*args):
    """Compiles Golden.java against pyspark's jars and runs it."""
    classes = Path(tempfile.mkdtemp(prefix="golden-classes"))
    cp = f"{jars()}/*"
    subprocess.run(["javac", "-nowarn", "-d", classes, "-cp", cp, HERE / "java" / "Golden.java"], check=True)
    subprocess.run(["java", "-cp", f"{cp}{os.pathsep}{classes}", "Golden", *map(str, args)], check=True)


def session():
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[2]")
        .config("spark.driver.memory", "2g")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )


def write_bytes(jfilter, jvm):
    out = jvm.java.io.ByteArrayOutputStream()
    jfilter.writeTo(out)
    return bytes(out.toByteArray())


def spark():
    """Spark's sketch classes write v1 and v2 filters (Golden.java), then
    DataFrame.stat.bloomFilter aggregates v2 ones over a two-partition
    DataFrame of the same values: the bytes must be the same."""
    out = DATA / "spark"
    out.mkdir(parents=True, exist_ok=True)
    java("sketch", out)
    spark = session()
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    for n in (1_000, 1_000_000):
        values = splitmix(1, n)
        for kind in ("long", "string"):
            rows = [(v,) for v in values] if kind == "long" else [(string(v, i),) for i, v in enumerate(values)]
            schema = StructType([StructField("v", LongType() if kind == "long" else StringType())])
            df = spark.createDataFrame(rows, schema).repartition(2)
            jf = df._jdf.stat().bloomFilter("v", n, 0.03)
            aggregated = write_bytes(jf, spark._jvm)
            direct = (out / f"v2-{kind}-{n}.bin").read_bytes()
            assert aggregated == direct, f"stat.bloomFilter differs from BloomFilter.create for {kind} {n}"
            print(f"DataFrame.stat.bloomFilter({kind}, {n}) == BloomFilter.create + put: {len(direct)} bytes")
    spark.stop()


def spark_read():
    """Spark's BloomFilter.readFrom loads each filter our code wrote
    (tests/data/spark/ours-*.bin, from `cargo test -p bloom --features spark
    --test spark_golden -- --ignored`) and records mightContain's answers."""
    spark = session()
    sketch = spark._jvm.org.apache.spark.util.sketch.BloomFilter
    queries = splitmix(2, QUERIES)
    for path in sorted((DATA / "spark").glob("ours-*.bin")):
        f = sketch.readFrom(path.read_bytes())
        kind = path.stem.split("-")[2]
        if kind == "long":
            answers = [f.mightContainLong(q) for q in queries]
        else:
            answers = [f.mightContainString(string(q, i)) for i, q in enumerate(queries)]
        path.with_suffix(".spark-answers").write_bytes(answers_bitmap(answers))
        print(f"{path.name}: Spark answers {sum(answers)} of {QUERIES} present")
    spark.stop()


def parquet():
    """Spark (parquet-mr inside it) writes one row group of PARQUET_ROWS rows
    with a bloom filter on every column; parquet-mr reads each filter back
    and records its offset, length and answers (Golden.java)."""
    out = DATA / "parquet"
    out.mkdir(parents=True, exist_ok=True)
    spark = session()
    from pyspark.sql.types import (
        BinaryType,
        DoubleType,
        FloatType,
        IntegerType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    schema = StructType(
        [
            StructField("id", LongType()),
            StructField("name", StringType()),
            StructField("i", IntegerType()),
            StructField("f", FloatType()),
            StructField("d", DoubleType()),
            StructField("b", BinaryType()),
        ]
    )
    rows = [
        (v, string(v, i), int32(v), float32(v), float64(v), bytearray(binary(v)))
        for i, v in enumerate(splitmix(1, PARQUET_ROWS))
    ]
    writer = spark.createDataFrame(rows, schema).coalesce(1).write.mode("overwrite")
    writer = writer.option("compression", "uncompressed")
    for col in schema.fieldNames():
        writer = writer.option(f"parquet.bloom.filter.enabled#{col}", "true")
        writer = writer.option(f"parquet.bloom.filter.expected.ndv#{col}", str(PARQUET_ROWS))
    tmp = Path(tempfile.mkdtemp(prefix="spark-parquet"))
    writer.parquet(str(tmp / "out"))
    spark.stop()
    (part,) = (tmp / "out").glob("part-*.parquet")
    target = out / f"spark-{PARQUET_ROWS}.parquet"
    shutil.copy(part, target)
    java("parquet", target, out, f"spark-{PARQUET_ROWS}")


def parquet_read():
    """parquet-mr's BlockSplitBloomFilter loads each bitset our code wrote
    (tests/data/parquet/ours-*.bitset) and records findHash's answers."""
    for path in sorted((DATA / "parquet").glob("ours-*.bitset")):
        kind = path.stem.split("-")[1]
        java("parquet-read", path, kind, path.with_suffix(".parquet-mr-answers"))
        print(f"{path.name}: parquet-mr answers recorded")


if __name__ == "__main__":
    {"spark": spark, "spark-read": spark_read, "parquet": parquet, "parquet-read": parquet_read}[sys.argv[1]]()
