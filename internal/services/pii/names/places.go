package names

// placeList holds countries, regions and cities of two or three words whose words the name lists
// know as given names or surnames, so that the tagger takes them for a person: "Hong Kong",
// "Costa Rica", "Puerto Rico". One per line, in lower case, the words as the tokenizer cuts them
// ("st gallen" for "St. Gallen"). Places a person may also be called are left out ("Santa
// Maria", "Santa Cruz").
const placeList = `hong kong
costa rica
puerto rico
sri lanka
kuala lumpur
tel aviv
addis ababa
monte carlo
buenos aires
las vegas
el salvador
san salvador
abu dhabi
phnom penh
dar es salaam
rio de janeiro
porto alegre
belo horizonte
la paz
sierra leone
burkina faso
cabo verde
cape verde
costa brava
costa del sol
costa blanca
mar del plata
ciudad juárez
ciudad juarez
santo andré
monte rosa
monte bianco
mont blanc
den haag
den helder
sankt gallen
st gallen
sankt moritz
st moritz
frankfurt am main
halle an der saale
new orleans
san luis
rio grande
ho chi minh
chiang mai
novi sad
banja luka
nova gorica
kota kinabalu
port moresby
santa lucia
saint lucia
saint kitts
trinidad and tobago`
