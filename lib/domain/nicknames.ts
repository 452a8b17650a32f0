/**
 * Given names that stand for one another (issue #38): the everyday forms of English, German, Dutch,
 * Scandinavian, French, Italian, Spanish and Portuguese given names, folded as names are (lower case,
 * no accents). A spreadsheet that says "Bill Gates" means the William Gates stored here; matching
 * scores such a pair close to an equal name, never as equal (`match: true` needs the name itself).
 *
 * No npm package keeps such a list (the `nicknames` package generates pet names): this is written
 * from the common English diminutives and the well-known forms of the other languages; a group is
 * a formal name first, then its short forms. A short form may stand for more than one formal name
 * (`alex`: Alexander, Alexandra): it is in each group.
 */
// biome-ignore format: a table
const GROUPS: readonly (readonly string[])[] = [
  // English
  ['william', 'bill', 'billy', 'will', 'willy', 'liam'], ['robert', 'bob', 'bobby', 'rob', 'robbie', 'bert'],
  ['richard', 'dick', 'rick', 'ricky', 'rich', 'richie'], ['elizabeth', 'liz', 'lizzie', 'beth', 'betty', 'bess', 'eliza', 'libby', 'lisa', 'elsie'],
  ['margaret', 'maggie', 'meg', 'peggy', 'madge', 'greta', 'daisy'], ['katherine', 'kate', 'kathy', 'katie', 'kat', 'kitty'],
  ['catherine', 'cathy', 'kate', 'katie', 'cat'], ['james', 'jim', 'jimmy', 'jamie'], ['john', 'jack', 'johnny'],
  ['jonathan', 'jon', 'jonny'], ['thomas', 'tom', 'tommy'], ['michael', 'mike', 'mikey', 'mick'],
  ['christopher', 'chris', 'kit'], ['christine', 'chris', 'chrissy', 'tina'], ['alexander', 'alex', 'alec', 'sandy', 'sasha'],
  ['alexandra', 'alex', 'sandra', 'sandy', 'sasha', 'lexi'], ['anthony', 'tony'], ['edward', 'ed', 'eddie', 'ted', 'ned'],
  ['joseph', 'joe', 'joey'], ['josephine', 'jo', 'josie'], ['daniel', 'dan', 'danny'], ['david', 'dave', 'davy'],
  ['susan', 'sue', 'susie'], ['patricia', 'pat', 'patty', 'trish'], ['patrick', 'pat', 'paddy'],
  ['jennifer', 'jen', 'jenny'], ['rebecca', 'becky', 'becca'], ['deborah', 'debbie', 'deb'], ['victoria', 'vicky', 'tori'],
  ['samuel', 'sam', 'sammy'], ['samantha', 'sam', 'sammy'], ['benjamin', 'ben', 'benny'], ['nicholas', 'nick', 'nicky'],
  ['andrew', 'andy', 'drew'], ['stephen', 'steve', 'stevie'], ['steven', 'steve', 'stevie'], ['timothy', 'tim', 'timmy'],
  ['charles', 'charlie', 'chuck'], ['henry', 'harry', 'hank'], ['peter', 'pete'], ['theodore', 'ted', 'teddy', 'theo'],
  ['frederick', 'fred', 'freddie'], ['gregory', 'greg'], ['lawrence', 'larry'], ['ronald', 'ron', 'ronnie'],
  ['donald', 'don', 'donnie'], ['kenneth', 'ken', 'kenny'], ['gerald', 'gerry', 'jerry'], ['raymond', 'ray'],
  ['albert', 'al', 'bert', 'bertie'], ['alfred', 'alf', 'fred'], ['walter', 'walt', 'wally'], ['eleanor', 'ellie', 'nell', 'nora'],
  ['helen', 'nell', 'nellie'], ['dorothy', 'dot', 'dottie', 'dolly'], ['barbara', 'barb', 'babs'], ['abigail', 'abby', 'gail'],
  ['alice', 'allie'], ['jacqueline', 'jackie'], ['judith', 'judy'], ['kimberly', 'kim'], ['pamela', 'pam'],
  ['theresa', 'terry', 'tess', 'tessa'], ['matthew', 'matt'], ['philip', 'phil'], ['phillip', 'phil'],
  ['vincent', 'vince', 'vinny'], ['zachary', 'zach', 'zack'], ['nathaniel', 'nate', 'nat'], ['nathan', 'nate'],
  ['joshua', 'josh'], ['jacob', 'jake'], ['douglas', 'doug'], ['leonard', 'leo', 'len', 'lenny'], ['louis', 'lou'],
  ['eugene', 'gene'], ['harold', 'harry', 'hal'], ['arthur', 'art', 'artie'], ['cynthia', 'cindy'], ['sarah', 'sally', 'sadie'],
  ['mary', 'molly', 'polly', 'mae'], ['ann', 'annie', 'nan'], ['anne', 'annie', 'nan'], ['frances', 'fran', 'frankie'],
  ['francis', 'frank', 'frankie'], ['virginia', 'ginny', 'ginger'], ['caroline', 'carrie', 'carol'], ['jessica', 'jess', 'jessie'],
  ['gabriel', 'gabe'], ['gabriella', 'gabby', 'ella'], ['isabella', 'bella', 'izzy'], ['isabel', 'bella', 'izzy'],
  ['penelope', 'penny'], ['priscilla', 'cilla'], ['florence', 'flo'], ['gertrude', 'trudy'], ['winifred', 'winnie'],
  ['augustus', 'gus'], ['montgomery', 'monty'], ['ernest', 'ernie'], ['stanley', 'stan'], ['bernard', 'bernie'],
  ['reginald', 'reggie', 'reg'], ['randolph', 'randy'], ['clifford', 'cliff'], ['maximilian', 'max'], ['maxwell', 'max'],
  // German, Dutch, Scandinavian
  ['johannes', 'hans', 'jan', 'jo', 'hannes'], ['johann', 'hans', 'hannes'], ['josef', 'sepp', 'seppi', 'joe'],
  ['friedrich', 'fritz', 'fred'], ['nikolaus', 'klaus', 'niklas', 'nico'], ['wolfgang', 'wolf'], ['matthias', 'matze', 'hias'],
  ['franziska', 'franzi'], ['elisabeth', 'lisa', 'liesl', 'lies', 'sisi', 'elsa', 'ilse'], ['margarete', 'grete', 'gretel', 'greta'],
  ['katharina', 'kathi', 'katja', 'kati'], ['magdalena', 'lena', 'leni', 'magda'], ['susanne', 'susi'], ['christian', 'chris', 'christl'],
  ['christoph', 'chris'], ['alexandra', 'alex'], ['ferdinand', 'ferdi'], ['gottfried', 'friedel'], ['heinrich', 'heinz', 'heiner', 'henk'],
  ['wilhelm', 'willi', 'willem', 'wim'], ['hendrik', 'henk'], ['cornelis', 'kees'], ['gerardus', 'gerard', 'gert'],
  ['jacobus', 'koos', 'jaap'], ['petrus', 'piet'], ['theodorus', 'theo', 'dorus'], ['antonius', 'toon', 'ton'],
  ['kristoffer', 'kris'], ['fredrik', 'fred'], ['ursula', 'uschi', 'ulla'], ['barbara', 'barbel', 'babette'],
  ['gertrud', 'trude', 'gerti'], ['hannelore', 'hanne', 'lore'], ['rosemarie', 'rosi'], ['ingeborg', 'inge'],
  ['waltraud', 'traudl', 'waltraut'], ['dietrich', 'dieter'], ['bernhard', 'bernd'], ['reinhard', 'reini'],
  // French, Italian
  ['guillaume', 'guy'], ['dominique', 'dom'], ['giuseppe', 'beppe', 'peppe', 'pino'], ['giovanni', 'gianni', 'vanni'],
  ['francesco', 'franco', 'checco'], ['alessandro', 'sandro', 'ale'], ['salvatore', 'toto', 'turi'], ['vincenzo', 'enzo'],
  ['antonio', 'tonio', 'toni', 'tono'],
  // Spanish, Portuguese
  ['jose', 'pepe', 'pepito', 'che', 'ze'], ['francisco', 'paco', 'pancho', 'curro', 'chico', 'quico'], ['manuel', 'manolo', 'manu'],
  ['enrique', 'quique'], ['rafael', 'rafa'], ['alejandro', 'alex', 'alejo'], ['guillermo', 'memo', 'guille'], ['jesus', 'chucho', 'chuy'],
  ['roberto', 'beto', 'tito'], ['alberto', 'beto', 'tito'], ['eduardo', 'lalo'], ['gonzalo', 'chalo'], ['ignacio', 'nacho'],
  ['dolores', 'lola'], ['mercedes', 'merche'], ['consuelo', 'chelo'], ['rosario', 'charo'], ['concepcion', 'concha', 'conchita'],
  ['guadalupe', 'lupe', 'lupita'], ['santiago', 'santi', 'yago'], ['fernando', 'nando'], ['federico', 'fede'],
  ['joaquin', 'quino'], ['luis', 'lucho'], ['maria', 'mari'], ['isabel', 'chabela'], ['teresa', 'tere'],
  ['jesusa', 'chucha'], ['joao', 'joaozinho'],
];

/** Each folded name and the groups it is in (a short form may be in several). */
const GROUPS_OF = new Map<string, number[]>();
GROUPS.forEach((group, index) => {
  for (const name of group) GROUPS_OF.set(name, [...(GROUPS_OF.get(name) ?? []), index]);
});

/** True when two different folded given names stand for one another (share a group). */
export const isNickname = (a: string, b: string): boolean => {
  if (a === b) return false;
  const groups = GROUPS_OF.get(a);
  return groups !== undefined && (GROUPS_OF.get(b) ?? []).some((group) => groups.includes(group));
};
