"""Hand-written source snippets: Python and Go.

Each language has a file header and a pool of top-level snippets; ``sources``
stitches them together (with different entity names on later passes) until a
file reaches the wanted size.
"""

from __future__ import annotations

PY_HEADER = '''"""«Entities» «label» module for «name».

Owned by the «entities» squad; see docs/adr/0007-«entities».md for the design.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable

logger = logging.getLogger(__name__)

'''

PY_SNIPPETS = (
    '''@dataclass(slots=True)
class «Entity»:
    id: int
    tenant_id: int
    status: str = "new"
    total_cents: int = 0
    created_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    tags: list[str] = field(default_factory=list)

    def is_open(self) -> bool:
        return self.status in {"new", "pending", "processing"}

''',
    '''class «Repo»:
    """Reads and writes «entities»; the only place that knows the table layout."""

    def __init__(self, session, cache: dict[int, «Entity»] | None = None) -> None:
        self._session = session
        self._cache = cache if cache is not None else {}

    def get_«entity»(self, «entity»_id: int) -> «Entity» | None:
        return self._session.get(«Entity», «entity»_id)

    def list_for_tenant(self, tenant_id: int, *, limit: int = 100) -> list[«Entity»]:
        stmt = select(«Entity»).where(«Entity».tenant_id == tenant_id).order_by(«Entity».created_at.desc())
        return list(self._session.scalars(stmt.limit(limit)))

    def save(self, «entity»: «Entity») -> None:
        self._session.add(«entity»)
        self._session.flush()
        self._cache.pop(«entity».id, None)

''',
    '''@bp.route("/«entities»/<int:«entity»_id>", methods=["GET"])
def show_«entity»(«entity»_id: int):
    «entity» = «Repo»(db.session).get_«entity»(«entity»_id)
    if «entity» is None:
        abort(404, description=f"«entity» {«entity»_id} not found")
    return jsonify(«Type»().dump(«entity»))


@bp.route("/«entities»", methods=["POST"])
def create_«entity»():
    payload = «Type»().load(request.get_json(force=True))
    «entity» = «entity»_service.create(current_tenant(), payload)
    logger.info("created «entity» %s for tenant %s", «entity».id, «entity».tenant_id)
    return jsonify(«Type»().dump(«entity»)), 201

''',
    '''def fetch_«entities»(client: httpx.Client, since: datetime, *, page_size: int = 500) -> Iterable[dict[str, Any]]:
    """Yield raw «entity» rows changed since ``since``, following the API's cursor."""
    cursor: str | None = None
    while True:
        params = {"updated_since": since.isoformat(), "limit": page_size}
        if cursor:
            params["cursor"] = cursor
        resp = client.get("/v3/exports/«entities»", params=params, timeout=30.0)
        resp.raise_for_status()
        body = resp.json()
        yield from body["data"]
        cursor = body.get("next_cursor")
        if not cursor:
            return

''',
    '''def transform_«entities»(df: pd.DataFrame) -> pd.DataFrame:
    """Normalise raw «entities»: cents to decimals, UTC timestamps, one row per id."""
    out = df.drop_duplicates(subset=["id"], keep="last").copy()
    out["total"] = out["«entity»_total"].astype("int64") / 100
    out["created_at"] = pd.to_datetime(out["created_at"], utc=True)
    out["status"] = out["status"].str.lower().fillna("unknown")
    return out.loc[:, ["id", "tenant_id", "status", "total", "created_at"]]

''',
    '''class «Entity»Service:
    def __init__(self, repo: «Repo», events: EventBus, clock=datetime.now) -> None:
        self._repo = repo
        self._events = events
        self._clock = clock

    def create(self, tenant_id: int, data: dict[str, Any]) -> «Entity»:
        «entity» = «Entity»(id=0, tenant_id=tenant_id, total_cents=int(data["total_cents"]))
        self._repo.save(«entity»)
        self._events.publish("«entity».created", {"id": «entity».id, "tenant_id": tenant_id})
        return «entity»

    def cancel(self, «entity»_id: int, reason: str) -> None:
        «entity» = self._repo.get_«entity»(«entity»_id)
        if «entity» is None or not «entity».is_open():
            raise InvalidState(f"«entity» {«entity»_id} cannot be cancelled")
        «entity».status = "cancelled"
        self._repo.save(«entity»)
        logger.warning("«entity» %s cancelled: %s", «entity»_id, reason)

''',
    '''def test_create_«entity»_publishes_event(repo, bus):
    service = «Entity»Service(repo, bus)
    «entity» = service.create(tenant_id=7, data={"total_cents": 1999})
    assert «entity».status == "new"
    assert bus.published == [("«entity».created", {"id": «entity».id, "tenant_id": 7})]


@pytest.mark.parametrize("status", ["shipped", "cancelled", "refunded"])
def test_cancel_rejects_closed_«entities»(repo, bus, status):
    repo.save(«Entity»(id=3, tenant_id=7, status=status))
    with pytest.raises(InvalidState):
        «Entity»Service(repo, bus).cancel(3, reason="customer request")

''',
)

GO_HEADER = '''// Package «entity» implements the «entities» commands of «name».
package «entity»

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"time"
)

'''

GO_SNIPPETS = (
    '''// «Entity» is one «entity» as returned by the API.
type «Entity» struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
	Labels    []string  `json:"labels,omitempty"`
}

''',
    '''// «Type» controls how «entities» are listed.
type «Type» struct {
	Output  string
	Limit   int
	Workers int
	Timeout time.Duration
}

// Default«Type» returns the options used when the config has no «entities» section.
func Default«Type»() «Type» {
	return «Type»{Output: "table", Limit: 100, Workers: 4, Timeout: 30 * time.Second}
}

''',
    '''// «Repo» caches «entities» fetched from the API.
type «Repo» struct {
	db    Querier
	cache *lru.Cache[int64, *«Entity»]
}

func (s *«Repo») Get(ctx context.Context, id int64) (*«Entity», error) {
	return s.db.Get«Entity»(ctx, id)
}

''',
    '''func (c *Client) List«Entities»(ctx context.Context, opts «Type») ([]«Entity», error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+"/v1/«entities»", nil)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	q := req.URL.Query()
	q.Set("limit", fmt.Sprint(opts.Limit))
	req.URL.RawQuery = q.Encode()
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("list «entities»: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, &APIError{Status: resp.StatusCode, Body: string(body)}
	}
	var out struct {
		Items []«Entity» `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("decode «entities»: %w", err)
	}
	sort.Slice(out.Items, func(i, j int) bool { return out.Items[i].ID < out.Items[j].ID })
	return out.Items, nil
}

''',
    '''var errNotFound = errors.New("«entity» not found")

func newListCmd(deps *Deps) *cobra.Command {
	opts := Default«Type»()
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List «entities»",
		RunE: func(cmd *cobra.Command, args []string) error {
			items, err := deps.Client.List«Entities»(cmd.Context(), opts)
			if err != nil {
				return err
			}
			return printTable(cmd.OutOrStdout(), items)
		},
	}
	cmd.Flags().IntVar(&opts.Limit, "limit", opts.Limit, "maximum number of «entities» to list")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", opts.Timeout, "request timeout")
	return cmd
}

''',
    '''func TestList«Entities»(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		want    int
		wantErr bool
	}{
		{"ok", 200, `{"items":[{"id":2},{"id":1}]}`, 2, false},
		{"empty", 200, `{"items":[]}`, 0, false},
		{"bad gateway", 502, `upstream unavailable`, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			got, err := NewClient(srv.URL).List«Entities»(context.Background(), Default«Type»())
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if len(got) != tt.want {
				t.Errorf("got %d «entities», want %d", len(got), tt.want)
			}
		})
	}
}

''',
)

PY_TEST_HEADER = """import pytest

from «pkg».models import «Entity»
from «pkg».services import «Entity»Service, InvalidState

"""

GO_TEST_HEADER = """package «entity»

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

"""
