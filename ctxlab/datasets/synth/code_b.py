"""Hand-written source snippets: Rust, TypeScript/React, JavaScript, YAML/HCL and HTML.

The front-end pool deliberately contains raw HTML (``<script src=...>``,
``<img src=x onerror=...>``) inside code and test fixtures: downstream HTML
reports must escape it.
"""

from __future__ import annotations

RS_HEADER = '''//! «Entity» parsing for «name».
//!
//! The parser is a hand-written recursive-descent parser over the token stream
//! produced by `lexer.rs`; every node carries a `Span`.

use crate::ast::{«Type», Node, Span};
use crate::error::{ParseError, ParseErrorKind};
use crate::lexer::{Lexer, Token, TokenKind};

'''

RS_SNIPPETS = (
    '''#[derive(Debug, Clone, PartialEq)]
pub struct «Type» {
    pub name: String,
    pub items: Vec<Node>,
    pub span: Span,
}

''',
    '''pub struct Parser<'src> {
    lexer: Lexer<'src>,
    lookahead: Option<Token<'src>>,
    diagnostics: Vec<ParseError>,
}

impl<'src> Parser<'src> {
    pub fn new(src: &'src str) -> Self {
        Self { lexer: Lexer::new(src), lookahead: None, diagnostics: Vec::new() }
    }

    fn peek(&mut self) -> Option<&Token<'src>> {
        if self.lookahead.is_none() {
            self.lookahead = self.lexer.next_token();
        }
        self.lookahead.as_ref()
    }

    fn advance(&mut self) -> Token<'src> {
        self.peek();
        self.lookahead.take().expect("advance past end of input")
    }
}

''',
    '''impl<'src> Parser<'src> {
    pub fn parse_«entity»(&mut self) -> Result<«Type», ParseError> {
        let start = self.expect(TokenKind::LBracket)?.span;
        let name = self.expect_ident()?;
        self.expect(TokenKind::RBracket)?;
        let mut items = Vec::new();
        while let Some(tok) = self.peek() {
            match tok.kind {
                TokenKind::LBracket | TokenKind::Eof => break,
                TokenKind::Newline => {
                    self.advance();
                }
                _ => items.push(self.parse_entry()?),
            }
        }
        let end = items.last().map(|n| n.span()).unwrap_or(start);
        Ok(«Type» { name: name.to_string(), items, span: start.to(end) })
    }
}

''',
    '''#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    Ident,
    Str,
    Int,
    Float,
    LBracket,
    RBracket,
    Equals,
    Comma,
    Newline,
    Eof,
}

impl TokenKind {
    pub fn describe(self) -> &'static str {
        match self {
            TokenKind::Ident => "identifier",
            TokenKind::Str => "string literal",
            TokenKind::Int | TokenKind::Float => "number",
            TokenKind::LBracket => "`[`",
            TokenKind::RBracket => "`]`",
            TokenKind::Equals => "`=`",
            TokenKind::Comma => "`,`",
            TokenKind::Newline => "end of line",
            TokenKind::Eof => "end of input",
        }
    }
}

''',
    '''#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nested_«entities»() {
        let src = "[outer]\\nkey = 1\\n[outer.inner]\\nname = \\"x\\"\\n";
        let doc = Parser::new(src).parse_document().unwrap();
        assert_eq!(doc.«entities».len(), 2);
        assert_eq!(doc.«entities»[1].name, "outer.inner");
    }

    #[test]
    fn reports_unterminated_string() {
        let err = Parser::new("[a]\\nk = \\"oops\\n").parse_document().unwrap_err();
        assert_eq!(err.kind, ParseErrorKind::UnterminatedString);
        assert_eq!(err.span, Span::new(8, 13));
    }
}

''',
)

TS_HEADER = '''import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import DOMPurify from 'dompurify';
import { fetch«Entities», type «Type» } from '../api/«entities»';
import styles from './«Entity»Table.module.css';

'''

TS_SNIPPETS = (
    '''export interface «Type» {
  id: string;
  title: string;
  status: 'open' | 'closed' | 'archived';
  owner?: { id: string; name: string };
  updatedAt: string;
  commentCount: number;
}

''',
    '''export function «Repo»({ pageSize = 50, onSelect }: { pageSize?: number; onSelect: (row: «Type») => void }) {
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<keyof «Type»>('updatedAt');
  const { data, isLoading, error } = useQuery(['«entities»', page], () => fetch«Entities»(page, pageSize));
  const rows = useMemo(
    () => [...(data?.items ?? [])].sort((a, b) => String(a[sort]).localeCompare(String(b[sort]))),
    [data, sort],
  );

  if (isLoading) return <Spinner label="Loading «entities»…" />;
  if (error) return <ErrorBanner error={error} />;
  return (
    <table className={styles.table}>
      <thead>
        <tr>
          <th onClick={() => setSort('title')}>Title</th>
          <th onClick={() => setSort('status')}>Status</th>
          <th onClick={() => setSort('updatedAt')}>Updated</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id} onClick={() => onSelect(row)}>
            <td>{row.title}</td>
            <td><StatusPill status={row.status} /></td>
            <td>{formatRelative(row.updatedAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

''',
    '''export function CommentBody({ comment }: { comment: { id: string; body: string } }) {
  return (
    <div className={styles.comment}>
      <div dangerouslySetInnerHTML={{ __html: comment.body }} />
    </div>
  );
}

''',
    '''export async function fetch«Entities»(page: number, pageSize = 50): Promise<{ items: «Type»[]; total: number }> {
  const res = await fetch(`/api/«entities»?page=${page}&pageSize=${pageSize}`, {
    headers: { Accept: 'application/json' },
    credentials: 'include',
  });
  if (!res.ok) {
    throw new ApiError(res.status, await res.text());
  }
  return res.json();
}

''',
    '''describe('«Repo»', () => {
  it('renders one row per «entity»', async () => {
    server.use(
      rest.get('/api/«entities»', (_req, res, ctx) => res(ctx.json({ items: fixtures.«entities», total: 3 }))),
    );
    render(<«Repo» onSelect={vi.fn()} />, { wrapper: QueryWrapper });
    expect(await screen.findAllByRole('row')).toHaveLength(4);
  });

  it('does not execute HTML from comments', () => {
    const evil = '<img src=x onerror=alert(1)><script>window.pwned = true</script>';
    render(<CommentBody comment={{ id: 'c1', body: evil }} />);
    expect(document.querySelector('img[onerror]')).toBeNull();
    expect((window as any).pwned).toBeUndefined();
  });
});

''',
)

HTML_PAGE = '''<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <title>«name» – «Entities»</title>
    <link rel="stylesheet" href="/assets/index-4f9c2b.css" />
    <script>window.__APP_CONFIG__ = { apiBase: "/api", sentryDsn: "" };</script>
  </head>
  <body>
    <noscript>You need to enable JavaScript to run this app.</noscript>
    <div id="root"></div>
    <!-- legacy widget: user-provided markup is injected below, see SEC-481 -->
    <div class="legacy-comment"><img src=x onerror="fetch('/api/session').then(r=>r.text()).then(alert)"></div>
    <script src="app.js"></script>
    <script type="module" src="/assets/index-8d1e0a.js"></script>
  </body>
</html>
'''

RS_TEST_HEADER = """use pretty_assertions::assert_eq;
use «pkg»::{Parser, ParseErrorKind, Span};

"""

TS_TEST_HEADER = """import { describe, it, expect, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import { rest } from 'msw';
import { server } from '../../test/server';
import { QueryWrapper } from '../../test/QueryWrapper';
import { «Repo», CommentBody } from '../«Repo»';
import fixtures from '../../test/fixtures/«entities».json';

"""
