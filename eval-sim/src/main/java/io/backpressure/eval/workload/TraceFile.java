package io.backpressure.eval.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/**
 * Reads the rows of a trace file: CSV with a header row, or JSON Lines (one object per line), each
 * optionally gzip-compressed ({@code .gz}). The format follows the file name: {@code .jsonl} or
 * {@code .ndjson} (before any {@code .gz}) is JSON Lines, anything else CSV.
 *
 * <p>Each row gives an arrival time and the call's prompt and completion tokens, and optionally a
 * tenant and a class, each from a column named by {@link Columns}. A timestamp is either a number
 * of seconds (any origin) or a date-time: ISO-8601 ({@code 2023-11-16T18:17:03.97996Z}, with or
 * without an offset) or {@code YYYY-MM-DD HH:MM:SS[.fffffffff]} as the Azure traces write it; a
 * date-time without an offset is read as UTC. Times are returned in seconds after the first row's.
 *
 * <p>Strict: a missing column, an unparsable or decreasing timestamp, a token count that is not a
 * whole number in [0, 10 000 000], a blank tenant or class, or an empty file is a {@link
 * WorkloadException} whose message names the file, the line (1-based, the header being line 1 of a
 * CSV) and the column. Nothing is read lazily: the whole file is checked before a row is used.
 */
final class TraceFile {
  /** The largest token count of one call a trace may give, as the workload schema allows. */
  static final long MAX_TOKENS = 10_000_000;

  private static final CsvMapper CSV = new CsvMapper();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter DATE_TIME =
      new DateTimeFormatterBuilder()
          .appendPattern("yyyy-MM-dd")
          .optionalStart()
          .appendLiteral('T')
          .optionalEnd()
          .optionalStart()
          .appendLiteral(' ')
          .optionalEnd()
          .appendPattern("HH:mm:ss")
          .optionalStart()
          .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
          .optionalEnd()
          .optionalStart()
          .appendOffset("+HH:MM", "Z")
          .optionalEnd()
          .toFormatter(Locale.ROOT);

  private TraceFile() {}

  /**
   * The column names a trace entry maps; {@code completionTokens}, {@code tenant} and {@code clazz}
   * are null when the file has no such column (completions then count 0 tokens).
   */
  record Columns(
      String timestamp,
      String promptTokens,
      String completionTokens,
      String tenant,
      String clazz) {}

  /**
   * One row.
   *
   * @param line the row's line in the file, 1-based
   * @param atS seconds after the first row's timestamp, never less than the previous row's
   * @param prompt the call's prompt tokens
   * @param completion the call's completion tokens
   * @param tenant the tenant column's value, or null without one
   * @param clazz the class column's value, or null without one
   */
  record Row(int line, double atS, long prompt, long completion, String tenant, String clazz) {}

  /**
   * Reads every row of {@code in}, closing it.
   *
   * @param name the file as the workload names it, for messages and for the format
   * @param field the workload field that named the file, for {@link WorkloadException#field()}
   * @throws WorkloadException naming the line and column at fault
   * @throws IOException when the file cannot be read
   */
  static List<Row> read(InputStream in, String name, String field, Columns columns)
      throws IOException {
    String plain = name.endsWith(".gz") ? name.substring(0, name.length() - 3) : name;
    boolean jsonLines = plain.endsWith(".jsonl") || plain.endsWith(".ndjson");
    try (InputStream raw = name.endsWith(".gz") ? new GZIPInputStream(in, 1 << 16) : in;
        Reader reader =
            new BufferedReader(new InputStreamReader(raw, StandardCharsets.UTF_8), 1 << 16)) {
      List<Row> rows = new ArrayList<>();
      RowReader rowReader = new RowReader(name, field, columns, rows);
      if (jsonLines) {
        readJsonLines((BufferedReader) reader, rowReader);
      } else {
        readCsv(reader, rowReader);
      }
      if (rows.isEmpty()) {
        throw new WorkloadException(field, name + ": the trace has no rows");
      }
      return rows;
    }
  }

  private static void readCsv(Reader reader, RowReader rows) throws IOException {
    try (MappingIterator<String[]> it =
        CSV.readerFor(String[].class).with(CsvParser.Feature.WRAP_AS_ARRAY).readValues(reader)) {
      if (!it.hasNext()) {
        throw new WorkloadException(rows.field, rows.name + ": empty file, no header row");
      }
      String[] header = it.next();
      int[] index = new int[5];
      String[] names = rows.columns();
      for (int c = 0; c < names.length; c++) {
        index[c] = -1;
        if (names[c] == null) {
          continue;
        }
        for (int h = 0; h < header.length; h++) {
          if (header[h].strip().equals(names[c])) {
            index[c] = h;
          }
        }
        if (index[c] < 0) {
          throw new WorkloadException(
              rows.field,
              rows.name
                  + " line 1: no column '"
                  + names[c]
                  + "' in the header; columns: "
                  + String.join(", ", header));
        }
      }
      int line = 1;
      while (it.hasNext()) {
        String[] cells;
        try {
          cells = it.next();
        } catch (RuntimeException e) {
          throw new WorkloadException(
              rows.field, rows.name + " line " + (line + 1) + ": malformed CSV: " + e.getMessage());
        }
        line++;
        if (cells.length == 1 && cells[0].isBlank()) {
          continue;
        }
        String[] values = new String[5];
        for (int c = 0; c < 5; c++) {
          if (index[c] >= 0) {
            if (index[c] >= cells.length) {
              throw new WorkloadException(
                  rows.field,
                  rows.name + " line " + line + ", column " + names[c] + ": the row has no value");
            }
            values[c] = cells[index[c]].strip();
          }
        }
        rows.add(line, values, null);
      }
    }
  }

  private static void readJsonLines(BufferedReader reader, RowReader rows) throws IOException {
    String text;
    int line = 0;
    String[] names = rows.columns();
    while ((text = reader.readLine()) != null) {
      line++;
      if (text.isBlank()) {
        continue;
      }
      JsonNode node;
      try {
        node = JSON.readTree(text);
      } catch (JsonProcessingException e) {
        throw new WorkloadException(
            rows.field,
            rows.name + " line " + line + ": malformed JSON: " + e.getOriginalMessage());
      }
      if (node == null || !node.isObject()) {
        throw new WorkloadException(
            rows.field, rows.name + " line " + line + ": each line must be one JSON object");
      }
      String[] values = new String[5];
      JsonNode[] nodes = new JsonNode[5];
      for (int c = 0; c < 5; c++) {
        if (names[c] == null) {
          continue;
        }
        JsonNode value = node.get(names[c]);
        if (value == null || value.isNull()) {
          throw new WorkloadException(
              rows.field,
              rows.name + " line " + line + ", column " + names[c] + ": missing or null");
        }
        if (!value.isValueNode()) {
          throw new WorkloadException(
              rows.field,
              rows.name
                  + " line "
                  + line
                  + ", column "
                  + names[c]
                  + ": must be a number or a string, got "
                  + value);
        }
        nodes[c] = value;
        values[c] = value.asText();
      }
      rows.add(line, values, nodes);
    }
  }

  /** Checks and collects rows; column order: timestamp, prompt, completion, tenant, class. */
  private static final class RowReader {
    final String name;
    final String field;
    final Columns columns;
    final List<Row> rows;
    double first = Double.NaN;
    double previous = Double.NEGATIVE_INFINITY;
    int previousLine;

    RowReader(String name, String field, Columns columns, List<Row> rows) {
      this.name = name;
      this.field = field;
      this.columns = columns;
      this.rows = rows;
    }

    String[] columns() {
      return new String[] {
        columns.timestamp(),
        columns.promptTokens(),
        columns.completionTokens(),
        columns.tenant(),
        columns.clazz()
      };
    }

    /**
     * @param values the row's cells, in column order
     * @param nodes the JSON values, or null for CSV (where every cell is text)
     */
    void add(int line, String[] values, JsonNode[] nodes) {
      double time = seconds(line, values[0], nodes == null ? null : nodes[0]);
      if (time < previous) {
        throw new WorkloadException(
            field,
            name
                + " line "
                + line
                + ", column "
                + columns.timestamp()
                + ": "
                + values[0]
                + " is earlier than line "
                + previousLine
                + "'s; rows must be sorted by time");
      }
      if (rows.isEmpty()) {
        first = time;
      }
      previous = time;
      previousLine = line;
      long prompt =
          tokens(line, columns.promptTokens(), values[1], nodes == null ? null : nodes[1]);
      long completion =
          tokens(line, columns.completionTokens(), values[2], nodes == null ? null : nodes[2]);
      String tenant = label(line, columns.tenant(), values[3]);
      String clazz = label(line, columns.clazz(), values[4]);
      rows.add(new Row(line, time - first, prompt, completion, tenant, clazz));
    }

    private double seconds(int line, String text, JsonNode node) {
      if (node != null && node.isNumber()) {
        return finite(line, text, node.asDouble());
      }
      try {
        return finite(line, text, Double.parseDouble(text));
      } catch (NumberFormatException notANumber) {
        try {
          var parsed = DATE_TIME.parse(text);
          LocalDateTime local = LocalDateTime.from(parsed);
          int offset =
              parsed.isSupported(ChronoField.OFFSET_SECONDS)
                  ? parsed.get(ChronoField.OFFSET_SECONDS)
                  : 0;
          Instant instant = local.toInstant(ZoneOffset.ofTotalSeconds(offset));
          return instant.getEpochSecond() + instant.getNano() / 1e9;
        } catch (DateTimeParseException e) {
          throw new WorkloadException(
              field,
              name
                  + " line "
                  + line
                  + ", column "
                  + columns.timestamp()
                  + ": cannot read '"
                  + text
                  + "' as a time; allowed: seconds, ISO-8601, or YYYY-MM-DD HH:MM:SS[.fffffff]");
        }
      }
    }

    private double finite(int line, String text, double value) {
      if (!Double.isFinite(value)) {
        throw new WorkloadException(
            field,
            name
                + " line "
                + line
                + ", column "
                + columns.timestamp()
                + ": '"
                + text
                + "' is not a finite number of seconds");
      }
      return value;
    }

    private long tokens(int line, String column, String text, JsonNode node) {
      if (column == null) {
        return 0;
      }
      long value;
      boolean whole;
      if (node != null) {
        whole = node.isIntegralNumber() && node.canConvertToLong();
        value = whole ? node.asLong() : 0;
      } else {
        long parsed = 0;
        try {
          parsed = Long.parseLong(text);
          whole = true;
        } catch (NumberFormatException e) {
          whole = false;
        }
        value = parsed;
      }
      if (!whole || value < 0 || value > MAX_TOKENS) {
        throw new WorkloadException(
            field,
            name
                + " line "
                + line
                + ", column "
                + column
                + ": token count must be a whole number in [0, "
                + MAX_TOKENS
                + "], got '"
                + text
                + "'");
      }
      return value;
    }

    private String label(int line, String column, String text) {
      if (column == null) {
        return null;
      }
      if (text.isBlank()) {
        throw new WorkloadException(
            field, name + " line " + line + ", column " + column + ": empty value");
      }
      return text;
    }
  }
}
