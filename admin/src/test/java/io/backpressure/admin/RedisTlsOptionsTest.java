package io.backpressure.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.redis.TlsFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** The Redis TLS options that the admin and bench commands share. */
class RedisTlsOptionsTest {

  @Command(name = "probe")
  static final class Probe {
    @Mixin RedisTlsOptions tls = new RedisTlsOptions();
  }

  @TempDir Path dir;

  private static RedisTlsOptions parse(String... args) {
    Probe probe = new Probe();
    new CommandLine(probe).parseArgs(args);
    return probe.tls;
  }

  private Path pem(String name) throws IOException {
    return Files.writeString(dir.resolve(name), "-----BEGIN CERTIFICATE-----\n");
  }

  @Test
  void noOptionsMeanNoTls() {
    RedisTlsOptions tls = parse();
    assertThat(tls.problem()).isNull();
    assertThat(tls.files()).isNull();
  }

  @Test
  void aCaFileAloneIsTrusted() throws IOException {
    Path ca = pem("ca.pem");
    RedisTlsOptions tls = parse("--redis-ca", ca.toString());
    assertThat(tls.problem()).isNull();
    assertThat(tls.files()).isEqualTo(new TlsFiles(ca, null, null));
  }

  @Test
  void aClientCertificateComesWithItsKey() throws IOException {
    Path cert = pem("client.pem");
    Path key = pem("client.key");
    RedisTlsOptions tls = parse("--redis-cert", cert.toString(), "--redis-key", key.toString());
    assertThat(tls.problem()).isNull();
    assertThat(tls.files()).isEqualTo(new TlsFiles(null, cert, key));
  }

  @Test
  void aCertificateWithoutItsKeyNamesTheMissingOption() throws IOException {
    RedisTlsOptions tls = parse("--redis-cert", pem("client.pem").toString());
    assertThat(tls.problem())
        .isEqualTo(
            new RedisTlsOptions.Problem("--redis-key", "--redis-cert and --redis-key go together"));
    RedisTlsOptions keyOnly = parse("--redis-key", pem("client.key").toString());
    assertThat(keyOnly.problem().option()).isEqualTo("--redis-cert");
  }

  @Test
  void anUnreadableFileNamesItsOption() {
    Path missing = dir.resolve("missing.pem");
    RedisTlsOptions tls = parse("--redis-ca", missing.toString());
    assertThat(tls.problem())
        .isEqualTo(
            new RedisTlsOptions.Problem(
                "--redis-ca", "--redis-ca must name a readable PEM file, got '" + missing + "'"));
  }

  @Test
  void theHelpDescribesEachOption() {
    String usage = new CommandLine(new Probe()).getUsageMessage();
    assertThat(usage)
        .contains("--redis-ca=FILE", "PEM file of the CA(s) to trust for a rediss:// URL")
        .contains("--redis-cert=FILE", "PEM client certificate for a rediss:// server")
        .contains("--redis-key=FILE", "PEM (PKCS#8) private key of --redis-cert.");
  }
}
