"""Hand-written source snippets: JavaScript (Node), Kubernetes/Helm YAML, Terraform and small config files."""

from __future__ import annotations

JS_HEADER = '''import express from 'express';
import { z } from 'zod';
import pino from 'pino';
import { config } from '../config.js';

const log = pino({ name: '«name»', level: config.logLevel });
export const router = express.Router();

'''

JS_SNIPPETS = (
    '''export const «Type»Schema = z.object({
  id: z.string().uuid(),
  tenantId: z.number().int().positive(),
  event: z.enum(['«entity».created', '«entity».updated', '«entity».deleted']),
  data: z.record(z.unknown()),
  sentAt: z.string().datetime(),
});

''',
    '''router.post('/«entities»', async (req, res, next) => {
  const parsed = «Type»Schema.safeParse(req.body);
  if (!parsed.success) {
    return res.status(422).json({ error: 'invalid_payload', issues: parsed.error.issues });
  }
  try {
    const result = await «entity»Service.handle(parsed.data);
    log.info({ id: parsed.data.id, event: parsed.data.event }, 'handled «entity» webhook');
    return res.status(202).json({ accepted: true, id: result.id });
  } catch (err) {
    return next(err);
  }
});

''',
    '''export class «Repo» {
  constructor({ http, queue, timeoutMs = config.timeoutMs }) {
    this.http = http;
    this.queue = queue;
    this.timeoutMs = timeoutMs;
  }

  async send«Entity»(payload) {
    const res = await this.http.post(`${config.upstreamUrl}/«entities»`, payload, { timeout: this.timeoutMs });
    if (res.status >= 500) {
      await this.queue.add('«entity»-retry', payload, { delay: 5_000 });
      throw new UpstreamError(res.status, `upstream returned ${res.status}`);
    }
    return res.data;
  }
}

''',
    '''describe('POST /webhooks/«entities»', () => {
  it('accepts a valid payload', async () => {
    const res = await request(app).post('/webhooks/«entities»').send(fixtures.valid«Entity»);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ accepted: true, id: fixtures.valid«Entity».id });
  });

  it('rejects an unknown event type with 422', async () => {
    const res = await request(app).post('/webhooks/«entities»').send({ ...fixtures.valid«Entity», event: 'nope' });
    expect(res.status).toBe(422);
  });
});

''',
)

YAML_HEADER = '''# «entities»-api – managed by the platform team. Do not edit in the cluster.
'''

YAML_SNIPPETS = (
    '''apiVersion: apps/v1
kind: Deployment
metadata:
  name: «entities»-api
  namespace: «entities»
  labels:
    app.kubernetes.io/name: «entities»-api
    app.kubernetes.io/part-of: «name»
spec:
  replicas: 3
  selector:
    matchLabels:
      app.kubernetes.io/name: «entities»-api
  template:
    metadata:
      labels:
        app.kubernetes.io/name: «entities»-api
    spec:
      containers:
        - name: api
          image: ghcr.io/«org»/«entities»-api:2024.05.3
          ports:
            - containerPort: 8080
          readinessProbe:
            httpGet:
              path: /healthz
              port: 8080
            periodSeconds: 5
          resources:
            limits:
              memory: 256Mi
---
''',
    '''apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: «entities»-api
  annotations:
    kubernetes.io/ingress.class: nginx
    cert-manager.io/cluster-issuer: letsencrypt-prod
spec:
  tls:
    - hosts: [«entities».«org».net]
      secretName: «entities»-tls
  rules:
    - host: «entities».«org».net
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: «entities»-api
                port:
                  number: 80
---
''',
    '''autoscaling:
  enabled: true
  minReplicas: 3
  maxReplicas: 12
  targetCPUUtilizationPercentage: 70
podDisruptionBudget:
  minAvailable: 2
env:
  LOG_LEVEL: info
  DB_POOL_SIZE: "20"
  UPSTREAM_TIMEOUT_MS: "30000"
''',
)

JS_TEST_HEADER = """import request from 'supertest';
import { app } from '../src/app.js';
import fixtures from './fixtures/«entities».json' with { type: 'json' };

"""

HCL_HEADER = """# Module «entities»: RDS, IAM and DNS for the «entities» service.
# Changes are applied by CI (`terraform apply tfplan`) after review.

"""

HCL_SNIPPETS = (
    """resource "aws_db_instance" "«entities»" {
  identifier              = "«entities»-prod"
  engine                  = "postgres"
  engine_version          = "15.5"
  instance_class          = var.db_instance_class
  allocated_storage       = 200
  max_allocated_storage   = 1000
  backup_retention_period = 14
  deletion_protection     = true
  parameter_group_name    = aws_db_parameter_group.«entities»_pg14.name
  tags                    = local.common_tags
}

""",
    """variable "db_instance_class" {
  description = "Instance class of the «entities» database."
  type        = string
  default     = "db.r6g.large"
}

variable "replicas" {
  description = "Number of API replicas."
  type        = number
  default     = 3
}

""",
    """resource "aws_route53_record" "«entities»" {
  zone_id = data.aws_route53_zone.internal.zone_id
  name    = "«entities».internal.«org».net"
  type    = "CNAME"
  ttl     = 300
  records = [module.«entities»_lb.dns_name]
}

""",
)

REGO_TEST = """package k8s.«entities»

import rego.v1

test_deployment_has_memory_limit if {
	deny with input as data.fixtures.deployment_without_limits
}

test_ingress_timeout_is_bounded if {
	count(deny) == 0 with input as data.fixtures.ingress_120s
}
"""

CARGO_TOML = """[package]
name = "«name»"
version = "0.4.2"
edition = "2021"
rust-version = "1.74"
description = "A small, fast «entity» parser with precise spans"
license = "MIT OR Apache-2.0"

[dependencies]
logos = "0.13"
memchr = "2.6"
thiserror = "1.0"

[dev-dependencies]
criterion = { version = "0.5", features = ["html_reports"] }
pretty_assertions = "1.4"

[[bench]]
name = "parse"
harness = false

[profile.release]
lto = "thin"
codegen-units = 1
"""

TSCONFIG = """{
  "compilerOptions": {
    "target": "ES2022",
    "lib": ["ES2022", "DOM", "DOM.Iterable"],
    "module": "ESNext",
    "moduleResolution": "bundler",
    "jsx": "react-jsx",
    "strict": true,
    "noUnusedLocals": true,
    "noFallthroughCasesInSwitch": true,
    "skipLibCheck": true,
    "baseUrl": ".",
    "paths": { "@/*": ["src/*"] }
  },
  "include": ["src"],
  "references": [{ "path": "./tsconfig.node.json" }]
}
"""

PIPELINE_YAML = """# Nightly pipelines for «name». Times are UTC.
defaults:
  retries: 2
  retry_delay_minutes: 10
  owner: data-platform@«org».com

pipelines:
  «entities»_daily:
    schedule: "15 2 * * *"
    source: s3://«org»-raw/«entities»/{{ ds }}/«entities».csv
    target: s3://«org»-curated/«entities»/dt={{ ds }}/
    resources:
      memory: 4Gi
      cpu: "2"
    checks:
      - not_null: [id, tenant_id, created_at]
      - unique: [id]
"""
