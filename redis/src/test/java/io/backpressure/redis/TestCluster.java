package io.backpressure.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A Redis Cluster of three masters with one replica each on loopback, for the tests: six {@code
 * redis-server} processes from the PATH ({@code --cluster-enabled yes}, no persistence, a temporary
 * directory), joined by {@code redis-cli --cluster create … --cluster-replicas 1}. A node that
 * stops answering is failed over after {@link #NODE_TIMEOUT_MS}; replicas may be promoted whatever
 * their replication lag ({@code cluster-replica-validity-factor 0}), as a test that kills a master
 * right after a burst of writes needs, and the other masters keep serving their slots while one has
 * none ({@code cluster-require-full-coverage no}). Skips the test when {@code redis-server} or
 * {@code redis-cli} is not on the PATH.
 */
final class TestCluster implements AutoCloseable {
  /** How long a node may be silent before the others mark it failed (ms). */
  static final int NODE_TIMEOUT_MS = 1_000;

  private static final int NODES = 6;

  private final Path dir;
  private final Map<Integer, Process> nodes = new HashMap<>();

  private TestCluster(Path dir) {
    this.dir = dir;
  }

  /** Starts the six nodes and joins them into a cluster whose every slot is served. */
  static TestCluster start() throws IOException, InterruptedException {
    String server = onPath("redis-server");
    String cli = onPath("redis-cli");
    Assumptions.assumeTrue(
        server != null && cli != null, "redis-server and redis-cli are needed on the PATH");
    TestCluster cluster = new TestCluster(Files.createTempDirectory("bp-cluster"));
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
    List<String> create = new ArrayList<>(List.of(cli, "--cluster", "create"));
    for (int port : freePorts(NODES)) {
      Path nodeDir = Files.createDirectories(cluster.dir.resolve(Integer.toString(port)));
      Process process =
          new ProcessBuilder(
                  server,
                  "--port",
                  Integer.toString(port),
                  "--bind",
                  "127.0.0.1",
                  "--cluster-enabled",
                  "yes",
                  "--cluster-config-file",
                  "nodes.conf",
                  "--cluster-node-timeout",
                  Integer.toString(NODE_TIMEOUT_MS),
                  "--cluster-replica-validity-factor",
                  "0",
                  "--cluster-require-full-coverage",
                  "no",
                  "--save",
                  "",
                  "--appendonly",
                  "no",
                  "--dir",
                  nodeDir.toString())
              .redirectErrorStream(true)
              .redirectOutput(nodeDir.resolve("redis.log").toFile())
              .start();
      cluster.nodes.put(port, process);
      create.add("127.0.0.1:" + port);
    }
    for (int port : cluster.nodes.keySet()) {
      cluster.await(
          "node " + port + " answers", () -> cluster.cli(port, "PING").startsWith("PONG"), 10_000);
    }
    create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
    Process join =
        new ProcessBuilder(create)
            .redirectErrorStream(true)
            .redirectOutput(cluster.dir.resolve("create.log").toFile())
            .start();
    if (!join.waitFor(60, TimeUnit.SECONDS) || join.exitValue() != 0) {
      throw new IllegalStateException(
          "redis-cli --cluster create failed: "
              + Files.readString(cluster.dir.resolve("create.log")));
    }
    cluster.awaitHealthy(30_000);
    return cluster;
  }

  /** One seed per node, {@code 127.0.0.1:PORT}. */
  List<String> seeds() {
    return nodes.keySet().stream().sorted().map(port -> "127.0.0.1:" + port).toList();
  }

  /** The port of the master that serves {@code key}'s slot, as a live node sees it. */
  int masterOf(String key) {
    int slot = Integer.parseInt(cli(anyLive(), "CLUSTER", "KEYSLOT", key).strip());
    for (String[] node : nodeLines()) {
      if (node[2].contains("master")
          && !node[2].contains("fail")
          && nodes.containsKey(port(node[1]))) {
        for (int i = 8; i < node.length; i++) {
          String[] range = node[i].split("-");
          if (range[0].startsWith("[")) {
            continue;
          }
          int from = Integer.parseInt(range[0]);
          int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
          if (slot >= from && slot <= to) {
            return port(node[1]);
          }
        }
      }
    }
    throw new IllegalStateException("no live master serves slot " + slot);
  }

  /** The ports of the running masters that serve slots and are not marked failed. */
  List<Integer> liveMasters() {
    List<Integer> masters = new ArrayList<>();
    for (String[] node : nodeLines()) {
      if (node[2].contains("master")
          && !node[2].contains("fail")
          && node.length > 8
          && nodes.containsKey(port(node[1]))) {
        masters.add(port(node[1]));
      }
    }
    return masters;
  }

  /**
   * Empties the script cache of every running node, as a restart or a newly promoted replica has
   * it.
   */
  void flushScripts() {
    for (int port : nodes.keySet()) {
      if (!cli(port, "SCRIPT", "FLUSH").startsWith("OK")) {
        throw new IllegalStateException("SCRIPT FLUSH failed on node " + port);
      }
    }
  }

  /** Kills a node with SIGKILL: no shutdown, no goodbye to the cluster, sockets reset. */
  void kill(int port) throws InterruptedException {
    Process process = nodes.get(port);
    process.destroyForcibly();
    process.waitFor();
    nodes.remove(port);
  }

  /**
   * Waits until every slot is served again by live masters, every live node says {@code
   * cluster_state:ok}, and the live nodes agree on the topology.
   */
  void awaitHealthy(long millis) throws InterruptedException {
    await(
        "every slot served by three live masters, state ok on every node",
        () -> {
          for (int port : nodes.keySet()) {
            if (!cli(port, "CLUSTER", "INFO").contains("cluster_state:ok")) {
              return false;
            }
          }
          return liveMasters().size() == 3;
        },
        millis);
  }

  /** Waits until every live replica has finished its first sync with its master. */
  void awaitReplicasInSync(long millis) throws InterruptedException {
    await(
        "replicas in sync",
        () -> {
          for (int port : nodes.keySet()) {
            String info = cli(port, "INFO", "replication");
            if (info.contains("role:slave") && !info.contains("master_link_status:up")) {
              return false;
            }
          }
          return true;
        },
        millis);
  }

  @Override
  public synchronized void close() {
    for (Process process : nodes.values()) {
      process.destroyForcibly();
    }
    nodes.clear();
  }

  private List<String[]> nodeLines() {
    return cli(anyLive(), "CLUSTER", "NODES")
        .lines()
        .filter(l -> !l.isBlank())
        .map(l -> l.split(" "))
        .toList();
  }

  private int anyLive() {
    return nodes.keySet().iterator().next();
  }

  private static int port(String address) {
    String hostPort = address.split("@")[0];
    return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
  }

  /** One redis-cli command against a node; its output, or "" if the node does not answer. */
  private String cli(int port, String... command) {
    List<String> args =
        new ArrayList<>(
            List.of(onPath("redis-cli"), "-h", "127.0.0.1", "-p", Integer.toString(port)));
    args.addAll(List.of(command));
    try {
      Process process = new ProcessBuilder(args).redirectErrorStream(true).start();
      byte[] out = process.getInputStream().readAllBytes();
      process.waitFor(10, TimeUnit.SECONDS);
      return new String(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  private void await(String what, java.util.function.BooleanSupplier condition, long millis)
      throws InterruptedException {
    long deadline = System.nanoTime() + millis * 1_000_000;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("cluster in " + dir + ": timed out waiting for " + what);
      }
      Thread.sleep(100);
    }
  }

  /**
   * {@code count} loopback ports that are free, each with its cluster bus port (+10 000) free too.
   */
  private static List<Integer> freePorts(int count) throws IOException {
    List<Integer> ports = new ArrayList<>();
    while (ports.size() < count) {
      int port = TestRedis.freePort();
      if (port + 10_000 <= 65_535 && !ports.contains(port) && free(port + 10_000)) {
        ports.add(port);
      }
    }
    return ports;
  }

  private static boolean free(int port) {
    try (java.net.ServerSocket socket =
        new java.net.ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static String onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String d : path.split(java.io.File.pathSeparator)) {
      java.io.File file = new java.io.File(d, name);
      if (file.canExecute()) {
        return file.getAbsolutePath();
      }
    }
    return null;
  }
}
