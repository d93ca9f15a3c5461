package io.backpressure.spring.boot;

import io.backpressure.core.FailOpenGate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.io.Resource;

/**
 * The {@code backpressure.*} properties: one gate per entry of {@code targets}, their shared state
 * (in memory, or Redis when {@code redis.url} or {@code redis.cluster-nodes} is set), what calls
 * get when that state is unavailable, and the framework integrations. Values are checked when the
 * gates are built at start-up; a bad one fails start-up with a message naming the property.
 */
@ConfigurationProperties(prefix = "backpressure")
public class BackpressureProperties {

  /** Whether to build the gates and the integrations at all. */
  private boolean enabled = true;

  /**
   * The target (a key of {@code targets}) that the Spring AI advisor, the LangChain4j decorators
   * and the {@code Gate} bean without qualifier use. Optional when only one target is configured.
   */
  private String defaultTarget;

  /**
   * The gates, by bean-friendly key (the key is also the target's name unless {@code name} is set).
   */
  private Map<String, Target> targets = new LinkedHashMap<>();

  /**
   * What calls get while the shared state cannot answer: local (default: each process gates by its
   * share of the caps, the cap divided by the processes alive when Redis last answered, or the
   * whole cap for a process that never reached it), open (admitted ungated) or closed (deferred).
   */
  private FailOpenGate.Mode failMode = FailOpenGate.Mode.LOCAL;

  /**
   * With Redis, how long one admission may wait for the state before the fail mode decides instead
   * (it bounds the Redis command timeout); unset to rely on the Redis command timeout alone.
   */
  private Duration stateTimeout;

  /** The tenant of calls that carry no context (optional; without it such calls are rejected). */
  private String defaultTenant;

  /** The priority class of calls that carry no context, or only a tenant. */
  private String defaultPriority;

  /**
   * Inside a Temporal activity without the workflow-side interceptor, the bound on a server-timed
   * wait for admission.
   */
  private Duration activityMaxWait = Duration.ofMinutes(10);

  /**
   * Outside Temporal activities, how long a call through the Spring AI advisor or a LangChain4j
   * decorator waits on the calling thread for its turn when the gate defers it (keeping its place
   * in line; a provider 429 becomes such a wait too); a call whose turn would come later fails at
   * once with ExpiredException. One budget per call: the call must be sent within it of its start,
   * resends after a 429 included. 0 to throw DeferredException at once instead; at most 1h.
   */
  private Duration maxWait = Duration.ofSeconds(30);

  /**
   * With Redis, whose policy a target gates by when Redis already holds one: keep (the stored one,
   * e.g. changed at run time with the admin command), replace (the one configured here is written
   * over it) or verify (start-up fails when they differ, naming the fields; a Redis unreachable
   * within the connect timeout cannot be checked, so start-up goes on under the fail mode with a
   * WARN, and a differing policy found later keeps the gate off Redis).
   */
  private PolicyOwnership policyOwnership = PolicyOwnership.KEEP;

  private final Redis redis = new Redis();
  private final Metrics metrics = new Metrics();
  private final LangChain4j langchain4j = new LangChain4j();
  private final SpringAi springAi = new SpringAi();
  private final Temporal temporal = new Temporal();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public String getDefaultTarget() {
    return defaultTarget;
  }

  public void setDefaultTarget(String defaultTarget) {
    this.defaultTarget = defaultTarget;
  }

  public Map<String, Target> getTargets() {
    return targets;
  }

  public void setTargets(Map<String, Target> targets) {
    this.targets = targets;
  }

  public FailOpenGate.Mode getFailMode() {
    return failMode;
  }

  public void setFailMode(FailOpenGate.Mode failMode) {
    this.failMode = failMode;
  }

  public Duration getStateTimeout() {
    return stateTimeout;
  }

  public void setStateTimeout(Duration stateTimeout) {
    this.stateTimeout = stateTimeout;
  }

  public String getDefaultTenant() {
    return defaultTenant;
  }

  public void setDefaultTenant(String defaultTenant) {
    this.defaultTenant = defaultTenant;
  }

  public String getDefaultPriority() {
    return defaultPriority;
  }

  public void setDefaultPriority(String defaultPriority) {
    this.defaultPriority = defaultPriority;
  }

  public Duration getActivityMaxWait() {
    return activityMaxWait;
  }

  public void setActivityMaxWait(Duration activityMaxWait) {
    this.activityMaxWait = activityMaxWait;
  }

  public Duration getMaxWait() {
    return maxWait;
  }

  public void setMaxWait(Duration maxWait) {
    this.maxWait = maxWait;
  }

  public PolicyOwnership getPolicyOwnership() {
    return policyOwnership;
  }

  public void setPolicyOwnership(PolicyOwnership policyOwnership) {
    this.policyOwnership = policyOwnership;
  }

  public Redis getRedis() {
    return redis;
  }

  public Metrics getMetrics() {
    return metrics;
  }

  public LangChain4j getLangchain4j() {
    return langchain4j;
  }

  public SpringAi getSpringAi() {
    return springAi;
  }

  public Temporal getTemporal() {
    return temporal;
  }

  /**
   * One target's policy: either a policy file (the YAML format of the core's {@code Policy}) or the
   * caps, classes and weights inline. Inline caps are per minute, as providers publish them.
   */
  public static class Target {

    /** The target's name, e.g. openai/gpt-4o; defaults to the key. */
    private String name;

    /**
     * A policy YAML file (e.g. classpath:policy.yaml); when set, the inline values must be unset.
     */
    private Resource policyFile;

    /** Requests per minute the provider allows. */
    private Double requestsPerMinute;

    /** Tokens per minute the provider allows. */
    private Double tokensPerMinute;

    /**
     * The most requests admitted at once after a quiet spell; defaults to one second of the cap, so
     * set it (at least 1) when requests-per-minute is below 60.
     */
    private Double requestsBurst;

    /**
     * The most tokens admitted at once after a quiet spell; defaults to one second of the cap. A
     * call whose estimate exceeds it can never be admitted, so set it to at least the largest call.
     */
    private Double tokensBurst;

    /** Priority classes and their weights, highest first, e.g. P1=0.5, P2=0.3, P3=0.2. */
    private Map<String, Double> priorities = new LinkedHashMap<>();

    /** Weights of named tenants (others get the default tenant weight). */
    private Map<String, Double> tenantWeights = new LinkedHashMap<>();

    /** The weight of tenants not named in tenant-weights. */
    private Double defaultTenantWeight;

    /**
     * The period the provider counts its caps in: 1s for a provider that counts per second, though
     * the caps here are still given per minute. The safe window and the period the provider's limit
     * headers are read in (limit 5 from a provider counting per second means 5 a second) default to
     * it. Default 1m; in (0, 1h]. A policy file states its own (its safe_window and feedback
     * period).
     */
    private Duration providerPeriod;

    /**
     * Never admit more than the cap in any window of this length. Default: the provider period (1m
     * unless provider-period says otherwise; a policy file has its own safe_window); 0 for none.
     */
    private Duration safeWindow;

    /**
     * How much the delay from admission to the provider's count of a call may vary: the safe window
     * is widened by it and the caps scaled to keep the window's allowance, so no provider window
     * sees more than the cap; costs the same factor of throughput (100ms on a 1s window: at most
     * 1/1.1 of the cap). 0 for none; needs a safe window and is at most its length. A policy file
     * has its own send_margin.
     */
    private Duration sendMargin = Duration.ZERO;

    /**
     * Whether to debit prompt plus max_tokens at admission and refund the unused part on release.
     */
    private boolean reservation;

    /** In reservation mode, the completion bound reserved for calls that set no max_tokens. */
    private Long defaultMaxTokens;

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }

    public Resource getPolicyFile() {
      return policyFile;
    }

    public void setPolicyFile(Resource policyFile) {
      this.policyFile = policyFile;
    }

    public Double getRequestsPerMinute() {
      return requestsPerMinute;
    }

    public void setRequestsPerMinute(Double requestsPerMinute) {
      this.requestsPerMinute = requestsPerMinute;
    }

    public Double getTokensPerMinute() {
      return tokensPerMinute;
    }

    public void setTokensPerMinute(Double tokensPerMinute) {
      this.tokensPerMinute = tokensPerMinute;
    }

    public Double getRequestsBurst() {
      return requestsBurst;
    }

    public void setRequestsBurst(Double requestsBurst) {
      this.requestsBurst = requestsBurst;
    }

    public Double getTokensBurst() {
      return tokensBurst;
    }

    public void setTokensBurst(Double tokensBurst) {
      this.tokensBurst = tokensBurst;
    }

    public Map<String, Double> getPriorities() {
      return priorities;
    }

    public void setPriorities(Map<String, Double> priorities) {
      this.priorities = priorities;
    }

    public Map<String, Double> getTenantWeights() {
      return tenantWeights;
    }

    public void setTenantWeights(Map<String, Double> tenantWeights) {
      this.tenantWeights = tenantWeights;
    }

    public Double getDefaultTenantWeight() {
      return defaultTenantWeight;
    }

    public void setDefaultTenantWeight(Double defaultTenantWeight) {
      this.defaultTenantWeight = defaultTenantWeight;
    }

    public Duration getProviderPeriod() {
      return providerPeriod;
    }

    public void setProviderPeriod(Duration providerPeriod) {
      this.providerPeriod = providerPeriod;
    }

    public Duration getSafeWindow() {
      return safeWindow;
    }

    public void setSafeWindow(Duration safeWindow) {
      this.safeWindow = safeWindow;
    }

    public Duration getSendMargin() {
      return sendMargin;
    }

    public void setSendMargin(Duration sendMargin) {
      this.sendMargin = sendMargin;
    }

    public boolean isReservation() {
      return reservation;
    }

    public void setReservation(boolean reservation) {
      this.reservation = reservation;
    }

    public Long getDefaultMaxTokens() {
      return defaultMaxTokens;
    }

    public void setDefaultMaxTokens(Long defaultMaxTokens) {
      this.defaultMaxTokens = defaultMaxTokens;
    }
  }

  /** The shared state on Redis or Valkey; unset for in-memory state (one process). */
  public static class Redis {

    /**
     * The server, e.g. redis://host:6379/0, rediss://user:password@host:6380 or
     * redis-sentinel://host:26379/0#mymaster.
     */
    private String url;

    /**
     * Seed nodes of a Redis Cluster (host:port or redis:// URLs), tried in order until one answers;
     * the client discovers the rest of the cluster from it. Exclusive with url.
     */
    private List<String> clusterNodes = new ArrayList<>();

    /** How long one Redis command may take before it fails and the fail mode decides. */
    private Duration commandTimeout = Duration.ofSeconds(1);

    /** How long opening a connection may take. */
    private Duration connectTimeout = Duration.ofSeconds(2);

    /** The first part of every key. */
    private String keyPrefix = "bp";

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public List<String> getClusterNodes() {
      return clusterNodes;
    }

    public void setClusterNodes(List<String> clusterNodes) {
      this.clusterNodes = clusterNodes;
    }

    public Duration getCommandTimeout() {
      return commandTimeout;
    }

    public void setCommandTimeout(Duration commandTimeout) {
      this.commandTimeout = commandTimeout;
    }

    public Duration getConnectTimeout() {
      return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
    }

    public String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }
  }

  /** Micrometer meters of every gate, when the application has a MeterRegistry. */
  public static class Metrics {

    /** Whether to record the gates' decisions in the application's MeterRegistry. */
    private boolean enabled = true;

    /** Whether to tag meters with the tenant too (bounded; for a known, small set of tenants). */
    private boolean tenantTag;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public boolean isTenantTag() {
      return tenantTag;
    }

    public void setTenantTag(boolean tenantTag) {
      this.tenantTag = tenantTag;
    }
  }

  /** The LangChain4j decorators. */
  public static class LangChain4j {

    /** Whether to wrap every ChatModel and StreamingChatModel bean in its gated decorator. */
    private boolean decorateModels = true;

    /**
     * Whether each answer's status and rate-limit headers, heard by the models' HTTP clients, go to
     * the gate, which then follows the provider's own count and retry-after.
     */
    private boolean providerFeedback = true;

    public boolean isDecorateModels() {
      return decorateModels;
    }

    public void setDecorateModels(boolean decorateModels) {
      this.decorateModels = decorateModels;
    }

    public boolean isProviderFeedback() {
      return providerFeedback;
    }

    public void setProviderFeedback(boolean providerFeedback) {
      this.providerFeedback = providerFeedback;
    }
  }

  /** The Spring AI advisor. */
  public static class SpringAi {

    /**
     * Whether start-up fails when a Spring AI ChatModel bean retries failed calls on its own
     * (max-retries above 0): each retry is a provider call the advisor did not admit.
     */
    private boolean checkModelRetries = true;

    /**
     * Whether each answer's status and rate-limit headers, heard by the OpenAI model's HTTP client,
     * go to the gate, which then follows the provider's own count and retry-after.
     */
    private boolean providerFeedback = true;

    public boolean isCheckModelRetries() {
      return checkModelRetries;
    }

    public void setCheckModelRetries(boolean checkModelRetries) {
      this.checkModelRetries = checkModelRetries;
    }

    public boolean isProviderFeedback() {
      return providerFeedback;
    }

    public void setProviderFeedback(boolean providerFeedback) {
      this.providerFeedback = providerFeedback;
    }
  }

  /** The Temporal worker interceptor, registered through the Temporal starter's customizers. */
  public static class Temporal {

    /**
     * How workflows wait out a deferral: explicit (Backpressure.run in workflow code), transparent
     * (every activity call, no workflow change) or none (the server's retry timer).
     */
    private WaitMode interceptor = WaitMode.EXPLICIT;

    /** With the transparent interceptor, the longest a workflow waits for one call's admission. */
    private Duration maxWait = Duration.ofMinutes(5);

    public WaitMode getInterceptor() {
      return interceptor;
    }

    public void setInterceptor(WaitMode interceptor) {
      this.interceptor = interceptor;
    }

    public Duration getMaxWait() {
      return maxWait;
    }

    public void setMaxWait(Duration maxWait) {
      this.maxWait = maxWait;
    }
  }

  /** How a workflow waits for a deferred activity; see the temporal module's README. */
  public enum WaitMode {
    /** {@code BackpressureInterceptor.create()}: waits under {@code Backpressure.run}. */
    EXPLICIT,
    /** {@code BackpressureInterceptor.transparent(maxWait)}: every activity call waits. */
    TRANSPARENT,
    /** No interceptor: the server's retry timer waits (explicit next-retry delay). */
    NONE
  }

  /** Whose policy a target on Redis gates by; see {@code backpressure.policy-ownership}. */
  public enum PolicyOwnership {
    /** The policy stored in Redis wins; the configured one is written only when there is none. */
    KEEP,
    /** The configured policy is written over the stored one at start-up. */
    REPLACE,
    /** Start-up fails when the stored policy differs from the configured one. */
    VERIFY
  }
}
