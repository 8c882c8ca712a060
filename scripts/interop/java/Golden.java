// Golden bytes and answers from Spark's own classes (spark-sketch and
// parquet-mr, as shipped inside pyspark). Run by ../generate.py; see
// ../README.md. Not run in CI.
//
//   java -cp "$PYSPARK_JARS/*:." Golden sketch <outdir>
//   java -cp "$PYSPARK_JARS/*:." Golden parquet <file.parquet> <outdir> <name>
//   java -cp "$PYSPARK_JARS/*:." Golden parquet-read <bitset> <kind> <out>

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.api.Binary;
import org.apache.spark.util.sketch.BloomFilter;

public class Golden {
  static final int QUERIES = 100_000;

  /** SplitMix64, the value generator shared with values.py and the Rust tests. */
  static long[] splitmix(long seed, int n) {
    long[] out = new long[n];
    long state = seed;
    for (int i = 0; i < n; i++) {
      state += 0x9E3779B97F4A7C15L;
      long z = state;
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      out[i] = z ^ (z >>> 31);
    }
    return out;
  }

  /** The i-th string value made from v (see values.py). */
  static String str(long v, int i) {
    String hex = Long.toHexString(v);
    switch (i % 3) {
      case 0: return hex;
      case 1: return "id-" + v;
      default: return "\u00e9-" + hex + "-\uD83D\uDCE6";
    }
  }

  static void writeAnswers(Path out, boolean[] answers) throws IOException {
    byte[] bits = new byte[(answers.length + 7) / 8];
    for (int i = 0; i < answers.length; i++) {
      if (answers[i]) bits[i / 8] |= (byte) (1 << (i % 8));
    }
    Files.write(out, bits);
  }

  static void sketch(Path dir) throws IOException {
    long[] queries = splitmix(2, QUERIES);
    for (int n : new int[] {1_000, 1_000_000}) {
      long[] values = splitmix(1, n);
      for (BloomFilter.Version version : BloomFilter.Version.values()) {
        for (String kind : new String[] {"long", "string"}) {
          long bits = BloomFilter.optimalNumOfBits(n, 0.03);
          BloomFilter f = BloomFilter.create(version, n, bits, 0);
          for (int i = 0; i < n; i++) {
            if (kind.equals("long")) f.putLong(values[i]); else f.putString(str(values[i], i));
          }
          boolean[] answers = new boolean[QUERIES];
          for (int i = 0; i < QUERIES; i++) {
            answers[i] = kind.equals("long")
                ? f.mightContainLong(queries[i]) : f.mightContainString(str(queries[i], i));
          }
          String name = version.name().toLowerCase() + "-" + kind + "-" + n;
          ByteArrayOutputStream bytes = new ByteArrayOutputStream();
          f.writeTo(bytes);
          Files.write(dir.resolve(name + ".bin"), bytes.toByteArray());
          writeAnswers(dir.resolve(name + ".answers"), answers);
          System.out.println(name + ": " + bytes.size() + " bytes, bitSize " + f.bitSize());
        }
      }
    }
  }

  /** The query values of column `kind`, hashed as parquet-mr hashes them. */
  static long[] parquetHashes(BlockSplitBloomFilter f, String kind, long[] vs) {
    long[] out = new long[vs.length];
    for (int i = 0; i < vs.length; i++) {
      long v = vs[i];
      switch (kind) {
        case "long": out[i] = f.hash(v); break;
        case "int": out[i] = f.hash((int) v); break;
        case "float": out[i] = f.hash((float) (v >>> 40) / 16.0f); break;
        case "double": out[i] = f.hash((double) (v >>> 11) * 0x1.0p-53); break;
        case "string": out[i] = f.hash(Binary.fromString(str(v, i))); break;
        case "binary": {
          byte[] le = new byte[8];
          for (int b = 0; b < 8; b++) le[b] = (byte) (v >>> (8 * b));
          int len = 1 + (int) Long.remainderUnsigned(v, 8);
          out[i] = f.hash(Binary.fromConstantByteArray(le, 0, len));
          break;
        }
        default: throw new IllegalArgumentException(kind);
      }
    }
    return out;
  }

  static final String[][] COLUMNS = {
    {"id", "long"}, {"name", "string"}, {"i", "int"}, {"f", "float"}, {"d", "double"},
    {"b", "binary"}
  };

  /** Each column's bloom filter offset, length and answers, by parquet-mr. */
  static void parquet(Path file, Path dir, String name) throws IOException {
    long[] queries = splitmix(2, QUERIES);
    StringBuilder manifest = new StringBuilder();
    try (ParquetFileReader reader = ParquetFileReader.open(
        new Configuration(), new org.apache.hadoop.fs.Path(file.toUri()))) {
      List<BlockMetaData> groups = reader.getRowGroups();
      if (groups.size() != 1) throw new IOException("expected one row group, got " + groups.size());
      for (ColumnChunkMetaData column : groups.get(0).getColumns()) {
        String col = column.getPath().toDotString();
        String kind = null;
        for (String[] c : COLUMNS) if (c[0].equals(col)) kind = c[1];
        BlockSplitBloomFilter f = (BlockSplitBloomFilter) reader.readBloomFilter(column);
        if (f == null) throw new IOException("no bloom filter in column " + col);
        long[] hashes = parquetHashes(f, kind, queries);
        boolean[] answers = new boolean[QUERIES];
        for (int i = 0; i < QUERIES; i++) answers[i] = f.findHash(hashes[i]);
        writeAnswers(dir.resolve(name + "-" + col + ".answers"), answers);
        manifest.append(col).append(' ').append(kind).append(' ')
            .append(column.getBloomFilterOffset()).append(' ')
            .append(column.getBloomFilterLength()).append(' ')
            .append(f.getBitsetSize()).append('\n');
      }
    }
    Files.write(dir.resolve(name + ".manifest"), manifest.toString().getBytes(StandardCharsets.UTF_8));
    System.out.print(manifest);
  }

  /** parquet-mr's answers for a bare bitset written by our code. */
  static void parquetRead(Path bitset, String kind, Path out) throws IOException {
    BlockSplitBloomFilter f = new BlockSplitBloomFilter(Files.readAllBytes(bitset));
    long[] hashes = parquetHashes(f, kind, splitmix(2, QUERIES));
    boolean[] answers = new boolean[QUERIES];
    for (int i = 0; i < QUERIES; i++) answers[i] = f.findHash(hashes[i]);
    writeAnswers(out, answers);
  }

  public static void main(String[] args) throws IOException {
    switch (args[0]) {
      case "sketch": sketch(Paths.get(args[1])); break;
      case "parquet": parquet(Paths.get(args[1]), Paths.get(args[2]), args[3]); break;
      case "parquet-read": parquetRead(Paths.get(args[1]), args[2], Paths.get(args[3])); break;
      default: throw new IllegalArgumentException(args[0]);
    }
  }
}
