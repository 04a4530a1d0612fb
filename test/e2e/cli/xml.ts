// A strict reader of the XML subset reports use (elements, attributes, text, entities, an XML
// declaration), so tests check what an XML consumer would read: it throws on anything malformed.

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(raw: string, where: number): string {
  if (/[<]/.test(raw)) throw new Error(`unescaped < at ${where}`);
  return raw.replace(/&([^;]*);?/g, (all, ref: string) => {
    if (!all.endsWith(';')) throw new Error(`unterminated entity at ${where}`);
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(Number(ref.slice(1)));
    if (!(ref in ENTITIES)) throw new Error(`unknown entity &${ref}; at ${where}`);
    return ENTITIES[ref];
  });
}

export function parseXml(text: string): XmlElement {
  let i = 0;
  const decl = /^<\?xml [^?]*\?>\s*/.exec(text);
  if (decl) i = decl[0].length;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    const raw = text.slice(i, lt < 0 ? text.length : lt);
    if (raw.trim()) {
      if (!stack.length) throw new Error(`text outside the root element at ${i}`);
      stack[stack.length - 1].text += decode(raw, i);
    }
    if (lt < 0) break;
    const gt = text.indexOf('>', lt);
    if (gt < 0) throw new Error(`unclosed tag at ${lt}`);
    const tag = text.slice(lt + 1, gt);
    i = gt + 1;
    if (tag.startsWith('/')) {
      const open = stack.pop();
      if (open?.name !== tag.slice(1)) throw new Error(`</${tag.slice(1)}> closes <${open?.name}> at ${lt}`);
      continue;
    }
    const m = /^([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"]*")*)\s*(\/?)$/.exec(tag);
    if (!m) throw new Error(`malformed tag <${tag}> at ${lt}`);
    const el: XmlElement = { name: m[1], attrs: {}, children: [], text: '' };
    for (const a of m[2].matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) {
      if (a[1] in el.attrs) throw new Error(`attribute ${a[1]} twice at ${lt}`);
      el.attrs[a[1]] = decode(a[2], lt);
    }
    if (stack.length) stack[stack.length - 1].children.push(el);
    else if (root) throw new Error(`a second root element at ${lt}`);
    else root = el;
    if (!m[3]) stack.push(el);
  }
  if (stack.length || !root) throw new Error(`unclosed <${stack[stack.length - 1]?.name ?? 'root'}>`);
  return root;
}
